// The output formats, one reporter per format behind one interface (google/benchmark style):
// table (terminal), markdown (PR comments, README), csv, json. A reporter prints a comparison
// (compare.hpp; json schema: configs/schema/compare.schema.json) or the summary `cudabench run`
// prints once a suite has run (run_summary.hpp; json: the result file itself), with the same
// number formatter (format_value.hpp) and CSV quoting. Each lives in its own
// src/core/report/report_<format>.cpp.
#pragma once
#include <memory>
#include <ostream>
#include <string>

#include "cudabench/compare.hpp"
#include "cudabench/result.hpp"

namespace cudabench {

struct report_options {
  bool color = false;  // ANSI colours for verdicts (table only): the CLI sets it for a tty without NO_COLOR
};

class reporter {
 public:
  virtual ~reporter() = default;
  virtual void report(const comparison& c, std::ostream& out) const = 0;
  // One row per metric of each workload (median, spread, min/max), non-ok workloads with their
  // status and message.
  virtual void report(const result_file& r, std::ostream& out) const = 0;
};

class table_reporter final : public reporter {
 public:
  explicit table_reporter(report_options options = {}) : options_(options) {}
  void report(const comparison& c, std::ostream& out) const override;
  void report(const result_file& r, std::ostream& out) const override;

 private:
  report_options options_;
};

class markdown_reporter final : public reporter {
 public:
  void report(const comparison& c, std::ostream& out) const override;
  void report(const result_file& r, std::ostream& out) const override;
};

class csv_reporter final : public reporter {
 public:
  void report(const comparison& c, std::ostream& out) const override;
  void report(const result_file& r, std::ostream& out) const override;
};

class json_reporter final : public reporter {
 public:
  void report(const comparison& c, std::ostream& out) const override;
  void report(const result_file& r, std::ostream& out) const override;
};

// "table", "markdown", "csv" or "json"; anything else throws input_error.
std::unique_ptr<reporter> make_reporter(const std::string& format, const report_options& options = {});

}  // namespace cudabench
