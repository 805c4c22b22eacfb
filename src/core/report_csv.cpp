// CSV (RFC 4180): one line per row and candidate, so a spreadsheet or pandas gets a tidy table.
// Numbers are plain (no units, no %); empty fields where a value does not exist.
#include <iterator>

#include <fmt/format.h>

#include "cudabench/report.hpp"
#include "report_common.hpp"

namespace cudabench {
namespace {

std::string quoted(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

std::string median_field(const compare_cell& c) {
  return c.present && c.state == status::ok ? fmt::format("{}", c.median) : "";
}

std::string status_field(const compare_cell& c) { return c.present ? to_string(c.state) : "absent"; }

}  // namespace

void csv_reporter::report(const comparison& c, std::ostream& out) const {
  out << "id,name,metric,unit,better,baseline,candidate,baseline_status,candidate_status,baseline_median,"
         "candidate_median,change_pct,p_value,verdict,baseline_throttled,candidate_throttled,note\n";
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
          ch.change_pct ? fmt::format("{:.4f}", *ch.change_pct) : "",
          ch.p_value ? fmt::format("{:.6g}", *ch.p_value) : "",
          to_string(ch.outcome),
          base.throttled ? "true" : "false",
          cand.throttled ? "true" : "false",
          ch.note,
      };
      std::string line;
      for (std::size_t i = 0; i < std::size(fields); ++i) line += (i ? "," : "") + quoted(fields[i]);
      out << line << '\n';
    }
}

}  // namespace cudabench
