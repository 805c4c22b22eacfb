// CSV (RFC 4180). A comparison: one line per row and candidate, so a spreadsheet or pandas gets a
// tidy table; numbers are plain (no units, no %); empty fields where a value does not exist. A run
// summary: the table's columns, the numbers as the table prints them.
#include <cmath>
#include <iterator>
#include <optional>

#include <fmt/format.h>

#include "cudabench/report.hpp"
#include "report_common.hpp"

namespace cudabench {
namespace {

std::string quoted(const std::string& s) { return report_detail::csv_field(s); }

std::string median_field(const compare_cell& c) {
  return c.present && c.state == status::ok ? fmt::format("{}", c.median) : "";
}

// A number, or empty when absent or not finite (a CSV cell never says inf or nan).
std::string num(const std::optional<double>& v, const char* spec) {
  return v && std::isfinite(*v) ? fmt::format(fmt::runtime(spec), *v) : std::string();
}

std::string status_field(const compare_cell& c) { return c.present ? to_string(c.state) : "absent"; }

}  // namespace

void csv_reporter::report(const comparison& given, std::ostream& out) const {
  const std::optional<comparison> safe = report_detail::text_safe(given);  // control characters escaped
  const comparison& c = safe ? *safe : given;
  out << "id,name,metric,unit,better,baseline,candidate,baseline_status,candidate_status,baseline_median,"
         "candidate_median,change_pct,ci_low_pct,ci_high_pct,p_value,p_adjusted,verdict,baseline_rounds,candidate_rounds,"
         "baseline_throttled,candidate_throttled,note,context,mde_pct\n";
  for (const auto& r : c.rows)
    for (std::size_t k = 0; k < r.changes.size(); ++k) {
      const auto& base = r.cells[0];
      const auto& cand = r.cells[k + 1];
      if (!base.present && !cand.present) continue;
      const auto& ch = r.changes[k];
      const std::string fields[] = {
          r.id,
          r.name,
          r.metric,
          r.unit,
          r.direction == better::lower ? "lower" : "higher",
          c.labels[0],
          c.labels[k + 1],
          status_field(base),
          status_field(cand),
          median_field(base),
          median_field(cand),
          num(ch.change_pct, "{:.4f}"),
          num(ch.ci_low_pct, "{:.4f}"),
          num(ch.ci_high_pct, "{:.4f}"),
          num(ch.p_value, "{:.6g}"),
          num(ch.p_adjusted, "{:.6g}"),
          to_string(ch.outcome),
          std::to_string(ch.rounds_baseline),
          std::to_string(ch.rounds_candidate),
          base.throttled ? "true" : "false",
          cand.throttled ? "true" : "false",
          ch.note,
          ch.context,
          num(ch.mde_pct, "{:.4f}"),
      };
      std::string line;
      for (std::size_t i = 0; i < std::size(fields); ++i) line += (i ? "," : "") + quoted(fields[i]);
      out << line << '\n';
    }
}

void csv_reporter::report(const result_file& r, std::ostream& out) const {
  out << "workload,status,metric,median,unit,spread,min,max_or_message\n";
  for (const auto& x : report_detail::run_rows(r)) {
    const std::string* fields[] = {&x.workload, &x.status, &x.metric, &x.median, &x.unit, &x.spread, &x.min, &x.max};
    std::string line;
    for (std::size_t i = 0; i < std::size(fields); ++i) line += (i ? "," : "") + quoted(*fields[i]);
    out << line << '\n';
  }
}

}  // namespace cudabench
