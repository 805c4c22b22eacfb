// See run_summary.hpp. The rows are built here, once; each reporter lays them out.
#include "cudabench/run_summary.hpp"

#include <cmath>
#include <sstream>

#include <fmt/format.h>

#include "cudabench/errors.hpp"
#include "cudabench/report.hpp"
#include "cudabench/text_safety.hpp"
#include "report_common.hpp"

namespace cudabench {

summary_format parse_summary_format(const std::string& s) {
  if (s == "table") return summary_format::table;
  if (s == "markdown") return summary_format::markdown;
  if (s == "csv") return summary_format::csv;
  if (s == "json") return summary_format::json;
  throw input_error(fmt::format("--format: unknown format \"{}\" (expected table, markdown, csv, json)", s));
}

const char* to_string(summary_format f) {
  switch (f) {
    case summary_format::markdown: return "markdown";
    case summary_format::csv: return "csv";
    case summary_format::json: return "json";
    default: return "table";
  }
}

std::string format_run_summary(const result_file& r, summary_format f) {
  std::ostringstream out;
  make_reporter(to_string(f))->report(r, out);
  return out.str();
}

namespace report_detail {

// Ids, metric names, units and messages as text: control characters escaped (text_safety.hpp).
std::vector<run_row> run_rows(const result_file& r) {
  std::vector<run_row> rows;
  for (const auto& w : r.workloads) {
    if (w.state != status::ok || w.metrics.empty()) {
      rows.push_back({terminal_text(w.id), to_string(w.state), "", "", "", "", "", terminal_text(w.message)});
      continue;
    }
    for (const auto& [name, m] : w.metrics) {
      const std::string spread = m.median != 0 ? fmt::format("±{:.1f}%", 100.0 * m.stddev / std::fabs(m.median)) : "";
      rows.push_back({terminal_text(w.id), w.clocks.throttled ? "ok*" : "ok", terminal_text(name),
                      format_value(m.median), terminal_text(m.unit), spread, format_value(m.min), format_value(m.max)});
    }
  }
  return rows;
}

bool any_throttled(const result_file& r) {
  for (const auto& w : r.workloads)
    if (w.clocks.throttled) return true;
  return false;
}

}  // namespace report_detail
}  // namespace cudabench
