// See variance_prior.hpp. The polygamma functions: the recurrence psi(x) = psi(x + 1) - 1/x (and its
// derivatives) up to x >= 12, then the asymptotic series (Abramowitz & Stegun 6.3.18, 6.4.11), which
// at x >= 12 is accurate to ~1e-15.
#include "cudabench/variance_prior.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace cudabench {

namespace {
constexpr double series_start = 12.0;

void check_positive(double x, const char* what) {
  if (!(x > 0) || !std::isfinite(x))
    throw std::invalid_argument(std::string(what) + ": argument must be finite and > 0");
}
}  // namespace

double digamma(double x) {
  check_positive(x, "digamma");
  double acc = 0;
  for (; x < series_start; x += 1) acc -= 1 / x;
  const double r = 1 / (x * x);
  return acc + std::log(x) - 0.5 / x -
         r * (1.0 / 12 - r * (1.0 / 120 - r * (1.0 / 252 - r * (1.0 / 240 - r * (1.0 / 132)))));
}

double trigamma(double x) {
  check_positive(x, "trigamma");
  double acc = 0;
  for (; x < series_start; x += 1) acc += 1 / (x * x);
  const double r = 1 / (x * x);
  return acc + 1 / x + r / 2 + r / x * (1.0 / 6 - r * (1.0 / 30 - r * (1.0 / 42 - r * (1.0 / 30 - r * (5.0 / 66)))));
}

double tetragamma(double x) {
  check_positive(x, "tetragamma");
  double acc = 0;
  for (; x < series_start; x += 1) acc -= 2 / (x * x * x);
  const double r = 1 / (x * x);
  return acc - r - r / x - r * r * (0.5 - r * (1.0 / 6 - r * (1.0 / 6 - r * (3.0 / 10 - r * (5.0 / 6)))));
}

double trigamma_inverse(double y) {
  check_positive(y, "trigamma_inverse");
  if (y > 1e7) return 1 / std::sqrt(y);  // trigamma(x) ~ 1/x^2 as x -> 0
  if (y < 1e-6) return 1 / y;            // trigamma(x) ~ 1/x as x -> infinity
  // Smyth's Newton iteration on 1/trigamma(x), which is nearly linear in x: monotone convergence.
  double x = 0.5 + 1 / y;
  for (int i = 0; i < 100; ++i) {
    const double tri = trigamma(x);
    const double step = tri * (1 - tri / y) / tetragamma(x);
    x += step;
    if (-step / x < 1e-10) break;
  }
  return x;
}

std::optional<variance_prior> fit_variance_prior(const std::vector<double>& s2, const std::vector<double>& df) {
  if (s2.size() != df.size()) throw std::invalid_argument("fit_variance_prior: one df per variance");
  for (std::size_t i = 0; i < s2.size(); ++i) {
    check_positive(s2[i], "fit_variance_prior (variance)");
    check_positive(df[i], "fit_variance_prior (df)");
  }
  const int n = static_cast<int>(s2.size());
  if (n < variance_prior_min_rows) return std::nullopt;
  // e_i = log s2_i - E[log chi2_df / df] estimates log s0^2 - E[log chi2_d0 / d0]; its variance
  // beyond trigamma(df/2) (the sampling part) is trigamma(d0/2).
  std::vector<double> e(s2.size());
  double mean = 0, sampling = 0;
  for (std::size_t i = 0; i < s2.size(); ++i) {
    e[i] = std::log(s2[i]) - digamma(df[i] / 2) + std::log(df[i] / 2);
    mean += e[i];
    sampling += trigamma(df[i] / 2);
  }
  mean /= n;
  sampling /= n;
  double var = 0;
  for (double v : e) var += (v - mean) * (v - mean);
  // The upper 95% bound of the rows' spread, not its estimate: from a few rows of a few rounds the
  // estimate is often far too small, and taking it would shrink a kind's noisiest row toward the
  // kind's level (simulated: 0.11 family-wise false-alarm rate at 2 rounds, 0.05 at 3). The bound is
  // the chi-square one on n - 1 df (Wilson-Hilferty), as if the e_i were normal.
  const double k = n - 1;
  const double chi2_low = k * std::pow(1 - 2 / (9 * k) - 1.6448536269514722 * std::sqrt(2 / (9 * k)), 3);
  var = var / std::max(chi2_low, 1e-3) - sampling;
  variance_prior out;
  out.rows = n;
  if (var > 0) {
    out.df = 2 * trigamma_inverse(var);
    out.s2 = std::exp(mean + digamma(out.df / 2) - std::log(out.df / 2));
  } else {
    out.df = std::numeric_limits<double>::infinity();
    out.s2 = std::exp(mean);
  }
  return out;
}

}  // namespace cudabench
