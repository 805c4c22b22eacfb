// SM clock and board power per repetition (report_html_parts.hpp), one group per file as in the
// samples chart, so a dip lines up with the samples it slowed. The GPU's maximum SM clock and its
// power limit are drawn as dashed red lines; a file whose run throttled (clocks.throttled or an
// NVML throttle reason) gets a red background and says "throttled" with the reasons on hover, so a
// throttled row is visibly so.
#include <algorithm>

#include <fmt/format.h>

#include "cudabench/svg_plot.hpp"
#include "report_html_parts.hpp"

namespace cudabench::report_html_detail {

namespace {

constexpr double left = 44, right = 6, top = 18, bottom = 40, height = 190, width = 260;

std::optional<double> device_number(const result_file& f, const char* key) {
  const auto d = f.environment.find("device");
  if (d == f.environment.end() || !d->is_object()) return std::nullopt;
  const auto v = d->find(key);
  if (v == d->end() || !v->is_number()) return std::nullopt;
  return v->get<double>();
}

std::string chart_of(const workload_view& w, const std::vector<result_file>& files,
                     const std::vector<std::string>& labels, const char* kind, const char* title, const char* limit_key,
                     const std::vector<double>& (*series)(const workload_result&)) {
  const std::size_t nf = w.per_file.size();
  double lo = 0, hi = 0;
  bool any = false;
  auto take = [&](double v) {
    lo = any ? std::min(lo, v) : v;
    hi = any ? std::max(hi, v) : v;
    any = true;
  };
  for (std::size_t f = 0; f < nf; ++f)
    if (w.per_file[f])
      for (double v : series(*w.per_file[f])) take(v);
  if (!any) return "";
  for (std::size_t f = 0; f < nf; ++f)
    if (w.per_file[f])
      if (auto lim = device_number(files[f], limit_key)) take(*lim);

  const double gw = (width - left - right) / static_cast<double>(nf);
  const svg::range yr = svg::padded(lo, hi, 0.08);
  const svg::scale y{yr.lo, yr.hi, height - bottom, top};
  svg::chart c(static_cast<int>(width), static_cast<int>(height), kind, title);
  c.y_axis(y, svg::nice_ticks(yr, 4), left, width - right);
  c.text(4, 11, title, "start", "t");
  for (std::size_t f = 0; f < nf; ++f) {
    const workload_result* r = w.per_file[f];
    const double gx = left + gw * static_cast<double>(f);
    if (!r) continue;
    const bool throttled = r->clocks.throttled || !r->clocks.throttle_reasons.empty();
    if (throttled) {
      c.rect(gx + 1, top, gw - 2, height - bottom - top, "hot");
      std::string reasons;
      for (const auto& t : r->clocks.throttle_reasons) reasons += (reasons.empty() ? "" : ", ") + t;
      c.text(gx + gw / 2, height - bottom + 28, "throttled", "middle", "bad",
             reasons.empty() ? "clock dropped" : reasons);
    }
    if (auto lim = device_number(files[f], limit_key)) {
      svg::path_data d;
      d.move(gx + 2, y(*lim)).h(gw - 4);
      c.path(d, "maxc");
    }
    c.text(gx + gw / 2, height - bottom + 14, std::to_string(f + 1), "middle", "", labels[f]);
    const auto& v = series(*r);
    if (v.empty()) continue;
    std::vector<std::pair<double, double>> pts;
    const double x0 = gx + 6, span = gw - 12;
    for (std::size_t j = 0; j < v.size(); ++j)
      pts.emplace_back(x0 + span * (static_cast<double>(j) + 0.5) / static_cast<double>(v.size()), y(v[j]));
    c.dots(pts, color_class(f), fmt::format("{}: {} per repetition", labels[f], title));
  }
  return c.finish();
}

const std::vector<double>& sm_series(const workload_result& r) { return r.clocks.sm_mhz; }
const std::vector<double>& power_series(const workload_result& r) { return r.clocks.power_w; }

}  // namespace

std::string clock_charts(const workload_view& w, const std::vector<result_file>& files,
                         const std::vector<std::string>& labels) {
  return chart_of(w, files, labels, "clock", "SM clock (MHz)", "max_sm_clock_mhz", sm_series) +
         chart_of(w, files, labels, "power", "board power (W)", "power_limit_w", power_series);
}

}  // namespace cudabench::report_html_detail
