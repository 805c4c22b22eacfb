// Output formats for a comparison (compare.hpp), one reporter per format behind one interface
// (google/benchmark style): table (terminal), markdown (PR comments, README), csv, json (schema:
// configs/schema/compare.schema.json). Each lives in its own src/core/report_<format>.cpp.
#pragma once
#include <memory>
#include <ostream>
#include <string>

#include "cudabench/compare.hpp"

namespace cudabench {

struct report_options {
  bool color = false;  // ANSI colours for verdicts (table only): the CLI sets it for a tty without NO_COLOR
};

class reporter {
 public:
  virtual ~reporter() = default;
  virtual void report(const comparison& c, std::ostream& out) const = 0;
};

class table_reporter final : public reporter {
 public:
  explicit table_reporter(report_options options = {}) : options_(options) {}
  void report(const comparison& c, std::ostream& out) const override;

 private:
  report_options options_;
};

class markdown_reporter final : public reporter {
 public:
  void report(const comparison& c, std::ostream& out) const override;
};

class csv_reporter final : public reporter {
 public:
  void report(const comparison& c, std::ostream& out) const override;
};

class json_reporter final : public reporter {
 public:
  void report(const comparison& c, std::ostream& out) const override;
};

// "table", "markdown", "csv" or "json"; anything else throws input_error.
std::unique_ptr<reporter> make_reporter(const std::string& format, const report_options& options = {});

}  // namespace cudabench
