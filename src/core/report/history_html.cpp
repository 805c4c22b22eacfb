// `history show --format html`: one self-contained page (the same skeleton and policy as
// `cudabench report`: html.hpp) with one line chart per series: runs in time order along x, each
// run's value as a dot (red when its clocks throttled), failed runs marked at the bottom, and each
// step as a dashed red line at the first run on the new level, with the two fitted levels drawn
// over their segments and the step's size written beside it. The runs table is at the end.
#include <algorithm>

#include <fmt/format.h>

#include "cudabench/history.hpp"
#include "cudabench/html.hpp"
#include "cudabench/svg_plot.hpp"
#include "report_common.hpp"

namespace cudabench {

namespace {

constexpr double width = 760, height = 200, left = 62, right = 10, top = 20, bottom = 30;

std::string series_chart(const history_view& h, const history_series& s) {
  const std::size_t n = h.runs.size();
  double lo = 0, hi = 0;
  bool any = false;
  for (const auto& v : s.values)
    if (v) {
      lo = any ? std::min(lo, *v) : *v;
      hi = any ? std::max(hi, *v) : *v;
      any = true;
    }
  const svg::range yr = any ? svg::padded(lo, hi) : svg::range{0, 1};
  const svg::scale y{yr.lo, yr.hi, height - bottom, top};
  const svg::scale x{0, static_cast<double>(std::max<std::size_t>(1, n - 1)), left + 8, width - right - 8};
  svg::chart c(static_cast<int>(width), static_cast<int>(height), "history", s.name);
  c.y_axis(y, svg::nice_ticks(yr, 4), left, width - right);
  c.text(4, 12, s.unit, "start", "t");
  // x labels: run ids at about 8 evenly spaced runs, and at the steps.
  const std::size_t every = std::max<std::size_t>(1, n / 8);
  for (std::size_t r = 0; r < n; r += every)
    c.text(x(static_cast<double>(r)), height - bottom + 14, std::to_string(h.runs[r].id), "middle", "t",
           h.runs[r].started_at);

  svg::path_data line;
  std::vector<std::pair<double, double>> ok, hot;
  bool first = true;
  for (std::size_t r = 0; r < n; ++r) {
    if (s.values[r]) {
      const double px = x(static_cast<double>(r)), py = y(*s.values[r]);
      if (first) line.move(px, py);
      else line.line(px, py);
      first = false;
      (s.throttled[r] ? hot : ok).emplace_back(px, py);
    } else if (s.states[r] && *s.states[r] != status::ok) {
      c.text(x(static_cast<double>(r)), height - bottom - 2, "\u00d7", "middle", "bad",
             fmt::format("run {}: {}", h.runs[r].id, to_string(*s.states[r])));
    }
  }
  c.path(line, "ln c0");
  for (const auto& st : s.steps) {
    const double sx = (x(static_cast<double>(st.previous)) + x(static_cast<double>(st.run))) / 2;
    svg::path_data d;
    d.move(sx, top).line(sx, height - bottom);
    c.path(d, "step");
    // The fitted levels over the segment the step was found in.
    svg::path_data seg;
    std::size_t seen = 0, first_run = n, last_run = 0, cut_first = n, cut_last = 0;
    for (std::size_t r = 0; r < n; ++r) {
      if (!s.values[r]) continue;
      if (seen >= st.where.begin && seen < st.where.index) first_run = std::min(first_run, r), last_run = r;
      if (seen >= st.where.index && seen < st.where.end) cut_first = std::min(cut_first, r), cut_last = r;
      ++seen;
    }
    if (first_run < n)
      seg.move(x(static_cast<double>(first_run)), y(st.where.before))
          .line(x(static_cast<double>(last_run)), y(st.where.before));
    if (cut_first < n)
      seg.move(x(static_cast<double>(cut_first)), y(st.where.after))
          .line(x(static_cast<double>(cut_last)), y(st.where.after));
    c.path(seg, "seg");
    c.text(sx + 4, top + 10, fmt::format("{:+.1f}% {}", st.where.change_pct, st.worse ? "worse" : "better"), "start",
           st.worse ? "bad" : "", describe_step(h, s, st));
  }
  c.dots(ok, "c0", s.name);
  c.dots(hot, "c0 hotpt", s.name + " (throttled)");
  return c.finish();
}

}  // namespace

void write_history_html(const history_view& h, std::ostream& out) {
  out << html::page_begin("cudabench history");
  out << "<header><h1>cudabench history</h1><p class=\"sub\">" << h.runs.size() << " runs, " << h.series.size()
      << " series. A step: the least-squares split of the log values, |change| &ge; "
      << fmt::format("{:g}", h.options.detection.threshold_pct) << "%, permutation p &lt; "
      << fmt::format("{:g}", h.options.detection.alpha) << ", at least " << h.options.detection.min_segment
      << " runs on each side.</p></header>\n<section id=\"steps\"><h2>Steps</h2><ul>";
  std::size_t steps = 0;
  for (const auto& s : h.series)
    for (const auto& st : s.steps) {
      out << "<li" << (st.worse ? " class=\"st-bad\"" : "") << ">" << html::escape(describe_step(h, s, st)) << "</li>";
      ++steps;
    }
  if (!steps) out << "<li>none</li>";
  out << "</ul></section>\n<section id=\"series\"><h2>Series</h2>\n";
  for (std::size_t i = 0; i < h.series.size(); ++i) {
    const auto& s = h.series[i];
    out << "<article class=\"wl" << (s.steps.empty() ? "" : " thr") << "\" id=\"s" << i << "\"><h3>"
        << html::escape(s.name) << "</h3><div class=\"sub mono\">" << html::escape(s.workload_id) << " · "
        << html::escape(s.metric) << "</div>" << series_chart(h, s) << "</article>\n";
  }
  out << "</section>\n<section id=\"runs\"><h2>Runs</h2><table><tr><th>run</th><th>started</th><th>label</th>"
         "<th>commit</th><th>toolkit</th><th>driver</th><th>cuBLAS</th><th>cuDNN</th><th>GPU</th><th>host</th></tr>";
  for (const auto& r : h.runs)
    out << "<tr><td class=\"num\">" << r.id << "</td><td>" << html::escape(r.started_at) << "</td><td>"
        << html::escape(r.label) << "</td><td class=\"mono\">" << html::escape(r.git_commit) << "</td><td>"
        << html::escape(r.toolkit) << "</td><td>" << html::escape(r.driver) << "</td><td>" << html::escape(r.cublas)
        << "</td><td>" << html::escape(r.cudnn) << "</td><td>" << html::escape(r.gpu) << "</td><td>"
        << html::escape(r.host) << "</td></tr>\n";
  out << "</table></section>\n" << html::page_end();
}

}  // namespace cudabench
