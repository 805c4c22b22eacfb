// The run summary (report_html_parts.hpp): for a single file, where there is no comparison, one
// table row per workload and plotted metric with its median, spread, rounds, status and clocks,
// each linked to its card, so the top of the page answers "how did this run go?" at a glance.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "cudabench/html.hpp"
#include "cudabench/stats.hpp"
#include "report_common.hpp"
#include "report_html_parts.hpp"

namespace cudabench::report_html_detail {

std::string summary_section(const std::vector<workload_view>& workloads) {
  std::string s =
      "<section id=\"summary\"><h2>Summary</h2><table><tr><th>workload</th><th>median</th><th>spread</th>"
      "<th>rounds</th><th>status</th><th>clocks</th></tr>\n";
  for (std::size_t i = 0; i < workloads.size(); ++i) {
    const auto& w = workloads[i];
    const workload_result* r = w.per_file.front();
    if (!r) continue;
    const bool throttled = r->clocks.throttled || !r->clocks.throttle_reasons.empty();
    std::vector<std::string> units;
    for (const auto& [n, m] : r->metrics) units.push_back(m.unit);
    const std::vector<std::string> metrics = w.metrics.empty() ? std::vector<std::string>{""} : w.metrics;
    for (const auto& name : metrics) {
      const metric* m = name.empty() ? nullptr : r->find_metric(name);
      const std::string label = readable_name(w.id, w.kind, *w.params, name, m ? m->unit : "", units);
      std::string median_text = "-", spread = "-", rounds = "-";
      if (m && !m->samples.empty() && r->state == status::ok) {
        const double med = median(m->samples);
        const auto [mn, mx] = std::minmax_element(m->samples.begin(), m->samples.end());
        median_text = format_value(med) + (throttled ? "*" : "");
        if (med != 0) spread = fmt::format("{:.2g}%", (*mx - *mn) / std::abs(med) * 100);
        std::vector<int> seen = m->rounds;
        std::sort(seen.begin(), seen.end());
        rounds = std::to_string(seen.empty() ? 1 : std::unique(seen.begin(), seen.end()) - seen.begin());
      }
      std::string clocks = throttled ? "throttled" : "steady";
      for (std::size_t k = 0; k < r->clocks.throttle_reasons.size(); ++k)
        clocks += (k ? ", " : ": ") + r->clocks.throttle_reasons[k];
      s += fmt::format(
          "<tr><td><a href=\"#w{}\">{}</a></td><td class=\"num{}\">{}</td><td class=\"num\">{}</td>"
          "<td class=\"num\">{}</td><td class=\"{}\">{}</td><td class=\"{}\">{}</td></tr>\n",
          i, html::escape(label), throttled ? " st-bad" : "", html::escape(median_text), html::escape(spread), rounds,
          r->state == status::ok ? "st-ok" : "st-bad", html::escape(to_string(r->state)), throttled ? "st-bad" : "",
          html::escape(clocks));
    }
  }
  return s + "</table>" +
         (std::any_of(workloads.begin(), workloads.end(), [](const workload_view& w) { return w.throttled(); })
              ? "<p class=\"sub\">" + html::escape(report_detail::throttle_footnote) + "</p>"
              : std::string()) +
         "</section>\n";
}

}  // namespace cudabench::report_html_detail
