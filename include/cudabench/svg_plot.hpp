// A tiny SVG writer for the HTML reports: scales, round tick values and a chart that collects
// elements. Inline SVG written by the program (no chart library, no JavaScript): the report opens
// offline, renders fast, and tests can read it as text. Kept lean on purpose: a series of points
// is ONE <path> ("M x y h0" per point, drawn as dots by a round line cap) and styling is by CSS
// class (html_page.cpp), so a 1,000-workload report stays a few MB and renders in a second or two.
// Every chart carries data-chart="<kind>" and every point series data-points="<n>", so a test (or
// the headless-browser check, scripts/check-report.sh) can count what was drawn.
#pragma once
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cudabench::svg {

struct range {
  double lo = 0, hi = 1;
};
// [lo, hi] widened by `frac` of its width on each side; a zero-width range (a constant metric) is
// widened by 1% of its value (or by 1 around 0) so it still has a visible height.
range padded(double lo, double hi, double frac = 0.06);
// About `target` round values (1, 2, 2.5, 5 x 10^k steps) inside r, ascending.
std::vector<double> nice_ticks(range r, int target = 4);
// A tick label: short, no float noise ("0.2", "687.5", "1.2e+06").
std::string tick_label(double v);

// Linear map of [d0, d1] onto [r0, r1]; a y axis passes r0 > r1 so larger values are higher.
struct scale {
  double d0 = 0, d1 = 1, r0 = 0, r1 = 1;
  double operator()(double v) const;
};

// Coordinates with at most one decimal and no trailing zeros: "12", "12.5".
std::string num(double v);

// Path data, built up command by command.
class path_data {
 public:
  path_data& move(double x, double y);
  path_data& line(double x, double y);
  path_data& h(double dx);
  path_data& v(double dy);
  path_data& close();
  const std::string& str() const { return d_; }
  bool empty() const { return d_.empty(); }

 private:
  std::string d_;
};

class chart {
 public:
  // `kind` names the chart for tests ("samples", "clock", "power", "change", "history").
  // `label` (escaped) is the chart's accessible name (role="img" aria-label).
  chart(int width, int height, std::string_view kind, std::string_view label);

  // One dot per point, all in one <path class="pt CLASS" data-points="N">; `title` is hover text.
  void dots(const std::vector<std::pair<double, double>>& xy, std::string_view css_class, std::string_view title = {});
  // A <path>; `extra` is appended verbatim inside the tag (the caller's own attributes, never
  // file strings).
  void path(const path_data& d, std::string_view css_class, std::string_view extra = {});
  void rect(double x, double y, double w, double h, std::string_view css_class);
  // Text, escaped here. `anchor`: start, middle, end. `title`: hover text, escaped.
  void text(double x, double y, std::string_view s, std::string_view anchor = "start", std::string_view css_class = {},
            std::string_view title = {});
  // Horizontal gridlines and labels at `ticks`, labels right-aligned left of x0.
  void y_axis(const scale& y, const std::vector<double>& ticks, double x0, double x1,
              const std::function<std::string(double)>& label = tick_label);
  // Closes the <svg> and returns the markup; the chart is empty afterwards.
  std::string finish();

 private:
  std::string out_;
};

}  // namespace cudabench::svg
