// See run_summary.hpp.
#include "cudabench/run_summary.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "cudabench/errors.hpp"
#include "cudabench/text_safety.hpp"

namespace cudabench {

summary_format parse_summary_format(const std::string& s) {
  if (s == "table") return summary_format::table;
  if (s == "markdown") return summary_format::markdown;
  if (s == "csv") return summary_format::csv;
  if (s == "json") return summary_format::json;
  throw input_error(fmt::format("--format: unknown format \"{}\" (expected table, markdown, csv, json)", s));
}

std::string format_value(double v) {
  const double a = std::fabs(v);
  if (a == 0) return "0";
  if (a >= 1e6 || a < 1e-3) return fmt::format("{:.3g}", v);
  if (a >= 100) return fmt::format("{:.0f}", v);
  if (a >= 10) return fmt::format("{:.1f}", v);
  if (a >= 1) return fmt::format("{:.2f}", v);
  return fmt::format("{:.3g}", v);
}

namespace {
struct row {
  std::string workload, status, metric, median, unit, spread, min, max;
};

// Ids, metric names, units and messages as text: control characters escaped (text_safety.hpp).
std::vector<row> rows_of(const result_file& r) {
  std::vector<row> rows;
  for (const auto& w : r.workloads) {
    if (w.state != status::ok || w.metrics.empty()) {
      rows.push_back({terminal_text(w.id), to_string(w.state), "", "", "", "", "", terminal_text(w.message)});
      continue;
    }
    for (const auto& [name, m] : w.metrics) {
      const std::string spread = m.median != 0 ? fmt::format("±{:.1f}%", 100.0 * m.stddev / std::fabs(m.median)) : "";
      rows.push_back({terminal_text(w.id), w.clocks.throttled ? "ok*" : "ok", terminal_text(name), format_value(m.median),
                      terminal_text(m.unit), spread, format_value(m.min), format_value(m.max)});
    }
  }
  return rows;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}
}  // namespace

std::string format_run_summary(const result_file& r, summary_format f) {
  if (f == summary_format::json) return json_text_safe(to_json(r).dump(2)) + "\n";
  const std::vector<row> rows = rows_of(r);
  const row header{"workload", "status", "metric", "median", "unit", "spread", "min", "max/message"};
  std::string out;
  if (f == summary_format::csv) {
    out += "workload,status,metric,median,unit,spread,min,max_or_message\n";
    for (const auto& x : rows)
      out += fmt::format("{},{},{},{},{},{},{},{}\n", csv_field(x.workload), x.status, x.metric, x.median,
                         csv_field(x.unit), x.spread, x.min, csv_field(x.max));
    return out;
  }
  if (f == summary_format::markdown) {
    out += fmt::format("**{}** — {}\n\n", terminal_text(r.label()),
                       terminal_text(r.environment.value("device", nlohmann::ordered_json::object())
                                         .value("name", std::string("unknown GPU"))));
    out += "| workload | status | metric | median | unit | spread | min | max |\n";
    out += "|---|---|---|---:|---|---:|---:|---:|\n";
    for (const auto& x : rows)
      out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", x.workload, x.status, x.metric, x.median,
                         x.unit, x.spread, x.min, x.max);
    return out;
  }
  std::size_t w[8] = {};
  auto widen = [&](const row& x) {
    const std::string* f8[] = {&x.workload, &x.status, &x.metric, &x.median, &x.unit, &x.spread, &x.min, &x.max};
    for (int i = 0; i < 8; ++i) w[i] = std::max(w[i], f8[i]->size());
  };
  widen(header);
  for (const auto& x : rows) widen(x);
  auto line = [&](const row& x) {
    return fmt::format("{:<{}}  {:<{}}  {:<{}}  {:>{}}  {:<{}}  {:>{}}  {:>{}}  {}\n", x.workload, w[0], x.status,
                       w[1], x.metric, w[2], x.median, w[3], x.unit, w[4], x.spread, w[5], x.min, w[6], x.max);
  };
  out += line(header);
  for (const auto& x : rows) out += line(x);
  bool any_throttled = false;
  for (const auto& wr : r.workloads) any_throttled |= wr.clocks.throttled;
  if (any_throttled) out += "* clock throttling was seen during this workload's repetitions\n";
  return out;
}

}  // namespace cudabench
