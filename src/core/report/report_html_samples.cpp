// A workload's samples for one metric, every file side by side (report_html_parts.hpp): one group
// per file with every sample as a dot in run order (round by round when the file has rounds), the
// file's median as a line across its group and its min-max spread as a light band; with rounds,
// each round's median is a short dark tick over that round's dots, so between-round drift is
// visible next to within-round spread. A file where the workload did not run ok shows its status.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "cudabench/html.hpp"
#include "cudabench/round_test.hpp"
#include "cudabench/stats.hpp"
#include "cudabench/svg_plot.hpp"
#include "report_common.hpp"
#include "report_html_parts.hpp"

namespace cudabench::report_html_detail {

namespace {
constexpr double left = 58, right = 6, top = 18, bottom = 40, height = 190;

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}
}  // namespace

std::string samples_chart(const workload_view& w, const std::string& metric_name,
                          const std::vector<std::string>& labels) {
  const std::size_t nf = w.per_file.size();
  std::vector<const metric*> ms(nf, nullptr);
  double lo = 0, hi = 0;
  bool any = false;
  std::string unit;
  for (std::size_t f = 0; f < nf; ++f) {
    const workload_result* r = w.per_file[f];
    if (!r) continue;
    ms[f] = r->find_metric(metric_name);
    if (!ms[f] || ms[f]->samples.empty()) continue;
    if (unit.empty()) unit = ms[f]->unit;
    if (r->state != status::ok) continue;  // a failed run's leftover samples are not plotted
    const auto [mn, mx] = std::minmax_element(ms[f]->samples.begin(), ms[f]->samples.end());
    lo = any ? std::min(lo, *mn) : *mn;
    hi = any ? std::max(hi, *mx) : *mx;
    any = true;
  }
  bool any_failed = false;
  for (const auto* r : w.per_file) any_failed = any_failed || (r && r->state != status::ok);
  if (!any && !any_failed) return "";

  const double width = std::max(340.0, left + right + 190.0 * static_cast<double>(nf));
  const double gw = (width - left - right) / static_cast<double>(nf);
  const svg::range yr = any ? svg::padded(lo, hi) : svg::range{0, 1};
  const svg::scale y{yr.lo, yr.hi, height - bottom, top};
  svg::chart c(static_cast<int>(width), static_cast<int>(height), "samples", metric_name);
  if (any) c.y_axis(y, svg::nice_ticks(yr, 4), left, width - right);
  c.text(4, 11, fmt::format("{} ({})", metric_name, unit), "start", "t");

  for (std::size_t f = 0; f < nf; ++f) {
    const double gx = left + gw * static_cast<double>(f);
    const double cx = gx + gw / 2;
    const std::string col = color_class(f);
    const workload_result* r = w.per_file[f];
    const std::size_t max_chars = static_cast<std::size_t>(std::max(6.0, gw / 6.2));
    c.text(cx, height - bottom + 14, html::truncate(labels[f], max_chars), "middle", "", labels[f]);
    if (!r || r->state != status::ok || !ms[f] || ms[f]->samples.empty()) {
      const std::string what = !r                       ? "not in this file"
                               : r->state != status::ok ? upper(to_string(r->state))
                                                        : "no " + metric_name;
      c.text(cx, (top + height - bottom) / 2, what, "middle", r && r->state != status::ok ? "bad" : "t",
             r ? r->message : std::string());
      continue;
    }
    const auto& m = *ms[f];
    const std::size_t n = m.samples.size();
    // Run order: by round, then by repetition within the round (stable).
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), 0);
    const bool has_rounds = m.rounds.size() == n;
    if (has_rounds)
      std::stable_sort(order.begin(), order.end(),
                       [&](std::size_t a, std::size_t b) { return m.rounds[a] < m.rounds[b]; });
    const double x0 = gx + 12, span = gw - 24;
    auto xpos = [&](std::size_t j) { return x0 + span * (static_cast<double>(j) + 0.5) / static_cast<double>(n); };

    const auto [mn, mx] = std::minmax_element(m.samples.begin(), m.samples.end());
    c.rect(gx + 4, y(*mx), gw - 8, y(*mn) - y(*mx), "band " + col);
    const double med = median(m.samples);
    svg::path_data md;
    md.move(gx + 4, y(med)).h(gw - 8);
    c.path(md, "med " + col);

    if (has_rounds) {
      svg::path_data rm;
      int rounds = 0;
      for (std::size_t j = 0; j < n;) {
        std::size_t k = j;
        std::vector<double> v;
        while (k < n && m.rounds[order[k]] == m.rounds[order[j]]) v.push_back(m.samples[order[k++]]);
        const double ry = y(median(v));
        rm.move(xpos(j) - 4, ry).line(xpos(k - 1) + 4, ry);
        ++rounds;
        j = k;
      }
      if (rounds > 1) c.path(rm, "rm", fmt::format("data-rounds=\"{}\"", rounds));
    }
    std::vector<std::pair<double, double>> pts;
    pts.reserve(n);
    for (std::size_t j = 0; j < n; ++j) pts.emplace_back(xpos(j), y(m.samples[order[j]]));
    const bool throttled = r->clocks.throttled || !r->clocks.throttle_reasons.empty();
    c.dots(pts, col,
           fmt::format("{}: {} samples, median {} {}{}", labels[f], n, format_value(med), m.unit,
                       throttled ? " (throttled)" : ""));
    c.text(cx, height - bottom + 28,
           fmt::format("median {} · spread {:.2g}%{}", format_value(med),
                       med != 0 ? (*mx - *mn) / std::abs(med) * 100 : 0.0, throttled ? " *" : ""),
           "middle", throttled ? "bad" : "t", "spread: (max - min) / median of this file's samples");
  }
  return c.finish();
}

}  // namespace cudabench::report_html_detail
