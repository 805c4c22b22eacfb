// See svg_plot.hpp.
#include "cudabench/svg_plot.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "cudabench/html.hpp"

namespace cudabench::svg {

range padded(double lo, double hi, double frac) {
  if (lo > hi) std::swap(lo, hi);
  if (!(hi > lo)) {
    const double w = lo == 0 ? 1.0 : std::abs(lo) * 0.01;
    return {lo - w, hi + w};
  }
  const double w = (hi - lo) * frac;
  return {lo - w, hi + w};
}

namespace {
double nice_step(double span, int target) {
  const double raw = span / std::max(1, target);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 2.5, 5.0, 10.0})
    if (m * mag >= raw) return m * mag;
  return 10 * mag;
}
}  // namespace

std::vector<double> nice_ticks(range r, int target) {
  std::vector<double> out;
  if (!(r.hi > r.lo) || !std::isfinite(r.lo) || !std::isfinite(r.hi)) return out;
  const double step = nice_step(r.hi - r.lo, target);
  for (double k = std::ceil(r.lo / step); k * step <= r.hi + step * 1e-9 && out.size() < 20; k += 1)
    out.push_back(std::round(k * step / step) * step);
  return out;
}

std::string tick_label(double v) {
  if (std::abs(v) < 1e-12) return "0";
  return fmt::format("{:.6g}", v);
}

double scale::operator()(double v) const {
  if (d1 == d0) return (r0 + r1) / 2;
  return r0 + (v - d0) / (d1 - d0) * (r1 - r0);
}

std::string num(double v) {
  if (!std::isfinite(v)) v = 0;
  const double r = std::round(v * 10) / 10;
  if (r == std::floor(r)) return fmt::format("{}", static_cast<long long>(r));
  return fmt::format("{:.1f}", r);
}

path_data& path_data::move(double x, double y) {
  d_ += "M" + num(x) + " " + num(y);
  return *this;
}
path_data& path_data::line(double x, double y) {
  d_ += "L" + num(x) + " " + num(y);
  return *this;
}
path_data& path_data::h(double dx) {
  d_ += "h" + num(dx);
  return *this;
}
path_data& path_data::v(double dy) {
  d_ += "v" + num(dy);
  return *this;
}
path_data& path_data::close() {
  d_ += "z";
  return *this;
}

chart::chart(int width, int height, std::string_view kind, std::string_view label) {
  out_ = fmt::format(
      "<svg width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "data-chart=\"{2}\" role=\"img\" aria-label=\"{3}\">",
      width, height, html::escape(kind), html::escape(label));
}

void chart::dots(const std::vector<std::pair<double, double>>& xy, std::string_view css_class, std::string_view title) {
  if (xy.empty()) return;
  path_data d;
  for (const auto& [x, y] : xy) d.move(x, y).h(0);
  out_ +=
      fmt::format("<path class=\"pt {}\" data-points=\"{}\" d=\"{}\">", html::escape(css_class), xy.size(), d.str());
  if (!title.empty()) out_ += "<title>" + html::escape(title) + "</title>";
  out_ += "</path>";
}

void chart::path(const path_data& d, std::string_view css_class, std::string_view extra) {
  if (d.empty()) return;
  out_ += fmt::format("<path class=\"{}\" d=\"{}\"{}{}/>", html::escape(css_class), d.str(), extra.empty() ? "" : " ",
                      extra);
}

void chart::rect(double x, double y, double w, double h, std::string_view css_class) {
  out_ += fmt::format("<rect class=\"{}\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>", html::escape(css_class),
                      num(x), num(y), num(std::max(0.0, w)), num(std::max(0.0, h)));
}

void chart::text(double x, double y, std::string_view s, std::string_view anchor, std::string_view css_class,
                 std::string_view title) {
  out_ += fmt::format("<text x=\"{}\" y=\"{}\"", num(x), num(y));
  if (anchor != "start") out_ += fmt::format(" text-anchor=\"{}\"", html::escape(anchor));
  if (!css_class.empty()) out_ += fmt::format(" class=\"{}\"", html::escape(css_class));
  out_ += ">";
  if (!title.empty()) out_ += "<title>" + html::escape(title) + "</title>";
  out_ += html::escape(s) + "</text>";
}

void chart::y_axis(const scale& y, const std::vector<double>& ticks, double x0, double x1,
                   const std::function<std::string(double)>& label) {
  path_data grid;
  for (double t : ticks) grid.move(x0, y(t)).line(x1, y(t));
  path(grid, "grid");
  for (double t : ticks) text(x0 - 4, y(t) + 3.5, label(t), "end", "t");
}

std::string chart::finish() {
  std::string s = std::move(out_);
  s += "</svg>";
  out_.clear();
  return s;
}

}  // namespace cudabench::svg
