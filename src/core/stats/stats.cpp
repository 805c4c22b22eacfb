// See stats.hpp.
#include "cudabench/stats.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace cudabench {

static void check_samples(const std::vector<double>& s) {
  if (s.empty()) throw std::invalid_argument("statistics of an empty sample set");
  for (double v : s)
    if (!std::isfinite(v)) throw std::invalid_argument("statistics over a NaN or infinite sample");
}

double median(std::vector<double> s) {
  check_samples(s);
  std::sort(s.begin(), s.end());
  const std::size_t n = s.size();
  return n % 2 ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

summary summarize(const std::vector<double>& s) {
  check_samples(s);
  summary out;
  out.median = median(s);
  out.mean = std::accumulate(s.begin(), s.end(), 0.0) / static_cast<double>(s.size());
  auto [lo, hi] = std::minmax_element(s.begin(), s.end());
  out.min = *lo;
  out.max = *hi;
  if (s.size() > 1) {
    double ss = 0;
    for (double v : s) ss += (v - out.mean) * (v - out.mean);
    out.stddev = std::sqrt(ss / static_cast<double>(s.size() - 1));
  }
  return out;
}

}  // namespace cudabench
