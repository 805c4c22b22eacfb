// See fleet_outliers.hpp.
#include "cudabench/fleet_outliers.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "cudabench/stats.hpp"

namespace cudabench {

outlier_analysis find_outliers(const std::vector<double>& values, double session_sd, const outlier_rule& rule) {
  if (values.empty()) throw std::invalid_argument("find_outliers: no values");
  for (double v : values)
    if (!std::isfinite(v)) throw std::invalid_argument("find_outliers: a value is not finite");
  outlier_analysis a;
  a.median = median(values);
  std::vector<double> abs_dev;
  for (double v : values) abs_dev.push_back(std::abs(v - a.median));
  a.mad = median(abs_dev);
  a.min = *std::min_element(values.begin(), values.end());
  a.max = *std::max_element(values.begin(), values.end());
  a.spread_pct = a.median != 0 ? (a.max - a.min) / std::abs(a.median) * 100.0 : 0.0;
  a.floor_pct = std::max(rule.min_deviation_pct, rule.session_multiple * session_sd * 100.0);
  a.judged = static_cast<int>(values.size()) >= rule.min_gpus && a.median != 0;
  // 1.4826 = 1 / Phi^-1(3/4): makes the MAD estimate the standard deviation of a normal sample.
  const double scale = 1.4826 * a.mad;
  for (double v : values) {
    outlier_verdict o;
    const double d = v - a.median;
    o.deviation_pct = a.median != 0 ? d / std::abs(a.median) * 100.0 + 0.0 : 0.0;
    if (scale > 0) o.robust_z = d / scale + 0.0;
    else o.robust_z = d == 0 ? 0.0 : std::copysign(std::numeric_limits<double>::infinity(), d);
    o.outlier = a.judged && std::abs(o.robust_z) > rule.k && std::abs(o.deviation_pct) >= a.floor_pct;
    a.per_value.push_back(o);
  }
  return a;
}

}  // namespace cudabench
