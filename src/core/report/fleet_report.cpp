// See fleet_report.hpp.
#include "cudabench/fleet_report.hpp"

#include <algorithm>
#include <sstream>

#include <fmt/format.h>

#include "report_common.hpp"

namespace cudabench {
namespace {

// CSV quoting is report_common's (one rule for every CSV the tool writes: a field with a comma,
// quote, \n or \r is quoted).
using report_detail::csv_field;

struct row {
  std::string workload, gpus, median, spread, range, outliers;
};

std::vector<row> rows_of(const fleet_file& f) {
  std::vector<row> out;
  for (const auto& w : f.workloads) {
    row r;
    r.workload = w.name;
    r.gpus = fmt::format("{}/{}", w.ok_count(), w.values.size());
    if (w.ok_count() == 0) {
      r.median = r.spread = r.range = "-";
      r.outliers = "no GPU ok";
    } else {
      r.median = format_value(w.analysis.median);
      r.spread = fmt::format("{:.1f}%", w.analysis.spread_pct);
      r.range = fmt::format("{} .. {}", format_value(w.analysis.min), format_value(w.analysis.max));
      int n = 0;
      for (const auto& v : w.values) n += v.value && v.verdict.outlier;
      r.outliers = !w.analysis.judged ? fmt::format("- (needs {} GPUs)", f.rule.min_gpus)
                   : n == 0           ? "none"
                                      : std::to_string(n);
    }
    for (const auto& v : w.values)
      if (v.state != status::ok) r.outliers += fmt::format("; {}: {}", f.gpus[v.gpu].name(), to_string(v.state));
    out.push_back(std::move(r));
  }
  return out;
}

void lists(std::ostringstream& s, const fleet_file& f, const char* bullet) {
  if (!f.outlier_gpus.empty()) {
    s << "\nOutlier GPUs:\n";
    for (const auto& o : f.outlier_gpus) s << bullet << o.line << "\n";
    // Every (GPU, workload) pair is in the file; on screen the first kLines tell the story.
    constexpr std::size_t kLines = 20;
    s << "\nOutliers by workload:\n";
    for (std::size_t i = 0; i < f.outliers.size() && i < kLines; ++i) s << bullet << f.outliers[i].line << "\n";
    if (f.outliers.size() > kLines)
      s << bullet << fmt::format("... and {} more (all in the fleet file's \"outliers\")", f.outliers.size() - kLines)
        << "\n";
  } else {
    s << fmt::format("\nNo outlier GPU (rule: robust z beyond {:g} and at least {:g}% from the fleet median{}).\n",
                     f.rule.k, f.rule.min_deviation_pct,
                     f.ok_gpus() < static_cast<std::size_t>(f.rule.min_gpus)
                         ? fmt::format("; judged from {} GPUs up", f.rule.min_gpus)
                         : "");
  }
  if (!f.differences.empty()) {
    s << "\nDifferences between GPUs:\n";
    for (const auto& d : f.differences) {
      std::vector<std::string> parts;
      for (const auto& [value, names] : d.groups)
        parts.push_back(fmt::format("{} on {}", value,
                                    names.size() > 4 ? fmt::format("{} GPUs", names.size())
                                                     : fmt::format("{}", fmt::join(names, ", "))));
      s << bullet << d.field << ": " << fmt::format("{}", fmt::join(parts, "; ")) << "\n";
    }
  }
  if (!f.notes.empty()) {
    s << "\nNotes:\n";
    for (const auto& n : f.notes) s << bullet << n << "\n";
  }
}

}  // namespace

std::string format_fleet_summary(const fleet_file& f, summary_format format) {
  std::ostringstream s;
  if (format == summary_format::json) return to_json(f).dump(2) + "\n";
  if (format == summary_format::csv) {
    s << "id,metric,unit,host,index,status,value,deviation_pct,robust_z,outlier\n";
    for (const auto& w : f.workloads)
      for (const auto& v : w.values) {
        const auto& g = f.gpus[v.gpu];
        s << fmt::format("{},{},{},{},{},{},{},{},{},{}\n", csv_field(w.id), csv_field(w.metric), csv_field(w.unit),
                         csv_field(g.host), g.index, to_string(v.state), v.value ? fmt::format("{:.6g}", *v.value) : "",
                         v.value ? fmt::format("{:.2f}", v.verdict.deviation_pct) : "",
                         v.value ? fmt::format("{:.2f}", v.verdict.robust_z) : "",
                         v.value && v.verdict.outlier ? "true" : "false");
      }
    return s.str();
  }
  std::vector<std::string> hosts;
  for (const auto& g : f.gpus)
    if (std::find(hosts.begin(), hosts.end(), g.host) == hosts.end()) hosts.push_back(g.host);
  s << fmt::format("fleet: {} GPU{} on {} host{} ({} with a result), suite {}, label \"{}\"\n", f.gpus.size(),
                   f.gpus.size() == 1 ? "" : "s", hosts.size(), hosts.size() == 1 ? "" : "s", f.ok_gpus(),
                   f.suite.value("name", "?"), f.label);
  const std::vector<row> rows = rows_of(f);
  const std::vector<std::string> head{"workload", "GPUs ok", "fleet median", "spread", "min .. max", "outliers"};
  if (format == summary_format::markdown) {
    s << "\n| " << fmt::format("{}", fmt::join(head, " | ")) << " |\n| --- | ---: | ---: | ---: | ---: | --- |\n";
    for (const auto& r : rows)
      s << fmt::format("| {} | {} | {} | {} | {} | {} |\n", r.workload, r.gpus, r.median, r.spread, r.range,
                       r.outliers);
    lists(s, f, "- ");
    return s.str();
  }
  std::size_t wn = head[0].size(), wr = head[4].size();
  for (const auto& r : rows) {
    wn = std::max(wn, r.workload.size());
    wr = std::max(wr, r.range.size());
  }
  s << "\n"
    << fmt::format("{:<{}}  {:>7}  {:>12}  {:>7}  {:>{}}  {}\n", head[0], wn, head[1], head[2], head[3], head[4], wr,
                   head[5]);
  for (const auto& r : rows)
    s << fmt::format("{:<{}}  {:>7}  {:>12}  {:>7}  {:>{}}  {}\n", r.workload, wn, r.gpus, r.median, r.spread, r.range,
                     wr, r.outliers);
  lists(s, f, "  ");
  return s.str();
}

}  // namespace cudabench
