// The comparison section (report_html_parts.hpp): for each candidate against the baseline, one
// horizontal bar per row with a change: its % change (positive = better) and its confidence
// interval as a whisker, coloured by verdict, sorted by effect (worst regression first, so what
// needs attention is at the top), the threshold as dashed lines. Rows past the axis (it stops at
// +-60% so a few huge changes don't flatten the rest) are clipped and marked with an arrow; their
// numbers are written beside them. Rows without a change (failed, only in one file) are listed
// below with compare's note. The verdicts are compare_results()'s own: the same as `compare`.
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "cudabench/html.hpp"
#include "cudabench/svg_plot.hpp"
#include "report_common.hpp"
#include "report_html_parts.hpp"

namespace cudabench::report_html_detail {

namespace {

constexpr double width = 1100, name_right = 372, x0 = 380, x1 = 820, row_h = 18, top = 26, bottom = 8;

bool has_bar(const compare_row& row, const compare_change& ch) {
  (void)row;
  switch (ch.outcome) {
    case verdict::improved:
    case verdict::regressed:
    case verdict::unchanged:
    case verdict::inconclusive: return ch.change_pct && std::isfinite(*ch.change_pct);
    default: return false;
  }
}

std::string bars_chart(const comparison& cmp, std::size_t cand, const std::vector<std::size_t>& rows) {
  double extent = std::max(1.0, 2 * cmp.threshold_pct);
  for (std::size_t r : rows) {
    const auto& ch = cmp.rows[r].changes[cand];
    extent = std::max(extent, std::abs(*ch.change_pct) * 1.08);
    if (ch.ci_low_pct && std::isfinite(*ch.ci_low_pct)) extent = std::max(extent, std::abs(*ch.ci_low_pct) * 1.08);
    if (ch.ci_high_pct && std::isfinite(*ch.ci_high_pct)) extent = std::max(extent, std::abs(*ch.ci_high_pct) * 1.08);
  }
  extent = std::min(extent, 60.0);
  const double height = top + bottom + row_h * static_cast<double>(rows.size());
  const svg::scale x{-extent, extent, x0, x1};
  auto clampx = [&](double v) { return x(std::clamp(v, -extent, extent)); };
  svg::chart c(static_cast<int>(width), static_cast<int>(height), "change",
               fmt::format("{} vs {}: change per row", cmp.labels[cand + 1], cmp.labels[0]));

  // Axis: gridlines at round percentages, the threshold dashed, zero solid.
  svg::path_data grid, thr, zero;
  for (double t : svg::nice_ticks({-extent, extent}, 6)) {
    grid.move(x(t), top - 4).line(x(t), height - bottom);
    c.text(x(t), top - 8, std::abs(t) < 1e-9 ? "0" : fmt::format("{:+g}%", t), "middle", "t");
  }
  c.path(grid, "grid");
  if (cmp.threshold_pct > 0 && cmp.threshold_pct < extent)
    for (double t : {-cmp.threshold_pct, cmp.threshold_pct}) thr.move(x(t), top - 2).line(x(t), height - bottom);
  c.path(thr, "thrl");
  zero.move(x(0), top - 4).line(x(0), height - bottom);
  c.path(zero, "zero");

  // One path per verdict for the bars and one for every whisker: a few elements, whatever the rows.
  std::map<verdict, std::pair<svg::path_data, int>> bars;
  svg::path_data whiskers;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& row = cmp.rows[rows[i]];
    const auto& ch = row.changes[cand];
    const double yt = top + row_h * static_cast<double>(i);
    const double ym = yt + row_h / 2;
    const double v = *ch.change_pct;
    auto& [d, n] = bars[ch.outcome];
    const double xb = clampx(v);
    d.move(x(0), yt + 3).h(xb - x(0)).v(row_h - 6).h(x(0) - xb).close();
    ++n;
    if (ch.ci_low_pct && ch.ci_high_pct && *ch.ci_low_pct != *ch.ci_high_pct) {
      const double a = clampx(*ch.ci_low_pct), b = clampx(*ch.ci_high_pct);
      whiskers.move(a, ym).line(b, ym).move(a, ym - 4).v(8).move(b, ym - 4).v(8);
    }
    if (std::abs(v) > extent) c.text(v > 0 ? x1 + 2 : x0 - 10, ym + 4, v > 0 ? "\u00bb" : "\u00ab", "start", "bad");
    const bool throttled = row.cells[0].throttled || row.cells[cand + 1].throttled;
    c.text(name_right, ym + 4, html::truncate(row.name, 58) + (throttled ? " *" : ""), "end", throttled ? "bad" : "",
           row.name + (throttled ? " (clocks throttled in a run)" : ""));
    std::string value = report_detail::format_change(ch.change_pct);
    const std::string ci = report_detail::format_ci(ch);
    if (!ci.empty()) value += " " + ci;
    value += " " + report_detail::verdict_text(ch.outcome);
    if (ch.p_adjusted) value += " (p " + report_detail::format_p(ch.p_adjusted) + ")";
    if (ch.mde_pct) value += " mde " + report_detail::format_mde(ch.mde_pct);
    const std::string aids = report_detail::cycles_energy_text(ch);
    if (!aids.empty()) value += "; " + aids;
    c.text(x1 + 12, ym + 4, value, "start", ch.outcome == verdict::regressed ? "bad" : "", ch.context);
  }
  for (auto& [v, dn] : bars)
    c.path(dn.first, std::string("v-") + to_string(v), fmt::format("data-bars=\"{}\"", dn.second));
  c.path(whiskers, "ci");
  return c.finish();
}

std::string list(const std::vector<std::string>& items) {
  if (items.empty()) return "";
  std::string s = "<ul>";
  for (const auto& i : items) s += "<li>" + html::escape(i) + "</li>";
  return s + "</ul>";
}

}  // namespace

std::string comparison_section(const comparison& cmp) {
  std::string s = "<section id=\"comparison\"><h2>Comparison</h2>\n";
  s += "<p class=\"sub\">" + html::escape(report_detail::settings_text(cmp)) + "; " + html::escape(cmp.noise_summary) +
       "</p>\n";
  if (cmp.single_round_warning) s += "<div class=\"note\">" + html::escape(*cmp.single_round_warning) + "</div>\n";
  for (std::size_t c = 0; c < cmp.candidates(); ++c) {
    s += "<h3>" + html::escape(cmp.labels[c + 1]) + " vs " + html::escape(cmp.labels[0]) + "</h3>\n";
    s += "<p><b>" + html::escape(report_detail::summary_line(cmp, c)) + "</b><br>" +
         html::escape(report_detail::mde_line(cmp, c)) + "</p>\n";
    std::vector<std::size_t> rows, others;
    for (std::size_t r = 0; r < cmp.rows.size(); ++r) {
      const auto& row = cmp.rows[r];
      if (!row.cells[0].present && !row.cells[c + 1].present) continue;  // another candidate's row
      (has_bar(row, row.changes[c]) ? rows : others).push_back(r);
    }
    std::stable_sort(rows.begin(), rows.end(), [&](std::size_t a, std::size_t b) {
      return *cmp.rows[a].changes[c].change_pct < *cmp.rows[b].changes[c].change_pct;
    });
    if (!rows.empty()) s += bars_chart(cmp, c, rows) + "\n";
    if (!others.empty()) {
      s += "<table><tr><th>workload</th><th>verdict</th><th>why</th></tr>";
      for (std::size_t r : others) {
        const auto& ch = cmp.rows[r].changes[c];
        s += fmt::format("<tr><td>{}</td><td class=\"{}\">{}</td><td>{}</td></tr>", html::escape(cmp.rows[r].name),
                         ch.outcome == verdict::failed ? "st-bad" : "",
                         html::escape(report_detail::verdict_text(ch.outcome)), html::escape(ch.note));
      }
      s += "</table>\n";
    }
  }
  if (report_detail::any_throttled(cmp))
    s += "<p class=\"sub\">" + html::escape(report_detail::throttle_footnote) + "</p>";
  const auto context = report_detail::context_notes(cmp);
  if (!context.empty()) s += "<p>Beside the changed rows (clocks, power, tuning):</p>" + list(context);
  if (cmp.has_cycles_or_energy()) s += "<p class=\"sub\">" + html::escape(report_detail::cycles_energy_legend) + "</p>";
  const auto failures = report_detail::failure_notes(cmp);
  if (!failures.empty()) s += "<p>Failures:</p>" + list(failures);
  return s + "</section>\n";
}

}  // namespace cudabench::report_html_detail
