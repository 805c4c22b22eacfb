// See round_test.hpp.
#include "cudabench/round_test.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include "cudabench/stats.hpp"
#include "cudabench/student_t.hpp"

namespace cudabench {

std::vector<double> round_medians(const std::vector<double>& samples, const std::vector<int>& rounds) {
  if (samples.empty()) throw std::invalid_argument("round_medians: no samples");
  if (rounds.empty()) return {median(samples)};
  if (rounds.size() != samples.size()) throw std::invalid_argument("round_medians: one round index per sample");
  std::map<int, std::vector<double>> by_round;
  for (std::size_t i = 0; i < samples.size(); ++i) by_round[rounds[i]].push_back(samples[i]);
  std::vector<double> out;
  for (auto& [r, v] : by_round) out.push_back(median(std::move(v)));
  return out;
}

double effect_to_pct(double effect, bool log_scale) { return (log_scale ? std::expm1(effect) : effect) * 100.0; }

namespace {

double mean(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s / static_cast<double>(v.size());
}

double sum_sq_dev(const std::vector<double>& v) {
  const double m = mean(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return s;
}

void check(const round_test_options& o) {
  if (!(o.round_sd > 0) || !std::isfinite(o.round_sd))
    throw std::invalid_argument("between_round_test: round_sd must be > 0");
  if (!(o.session_sd >= 0) || !std::isfinite(o.session_sd))
    throw std::invalid_argument("between_round_test: session_sd must be >= 0");
  if (!(o.session_df >= 0) || !std::isfinite(o.session_df))
    throw std::invalid_argument("between_round_test: session_df must be >= 0");
  if (!(o.prior_df > 0) || !std::isfinite(o.prior_df))
    throw std::invalid_argument("between_round_test: prior_df must be > 0");
  if (!(o.alpha > 0 && o.alpha < 1)) throw std::invalid_argument("between_round_test: alpha must be in (0, 1)");
}

// Standard error and degrees of freedom from the moderated round variance `s2` (with `df_s2`
// degrees of freedom) and the session variance (known when session_df is 0, else estimated with
// session_df degrees of freedom).
void combine(double s2, double df_s2, double nb, double nc, double session_sd, double session_df, double& se,
             double& df) {
  const double a = s2 * (1 / nb + 1 / nc);
  const double b = 2 * session_sd * session_sd;
  se = std::sqrt(a + b);
  // Known session variance: Welch-Satterthwaite over the round term alone. Estimated session
  // variance: the conservative df, min(df_s2, session_df) (Hsu 1938; Scheffe 1970, JASA 65(332)).
  // Not Satterthwaite's sum: when the sessions happened to agree (a small estimate from 1-3 df),
  // its df jumps to the rounds' and the test trusts the lucky estimate; simulated with 40 rows and
  // a history of 2 sessions, that raised a false alarm in 23% of A/A comparisons
  // (tests/unit/test_noise_simulation.cpp).
  if (session_df > 0) df = std::min(df_s2, session_df);
  else df = a > 0 ? std::min(1e6, (a + b) * (a + b) / (a * a / df_s2)) : 1e6;
}

}  // namespace

round_test_result between_round_test(const std::vector<double>& base, const std::vector<double>& cand,
                                     const round_test_options& o) {
  if (base.empty() || cand.empty()) throw std::invalid_argument("between_round_test: a side has no rounds");
  check(o);
  for (const auto* side : {&base, &cand})
    for (double x : *side)
      if (!std::isfinite(x)) throw std::invalid_argument("between_round_test: non-finite value");

  round_test_result r;
  // Ratios are what performance changes are: work on logs when every value is positive; otherwise
  // (a metric that can be zero or negative) on values relative to the baseline's mean.
  r.log_scale = std::all_of(base.begin(), base.end(), [](double x) { return x > 0; }) &&
                std::all_of(cand.begin(), cand.end(), [](double x) { return x > 0; });
  std::vector<double> b = base, c = cand;
  if (r.log_scale) {
    for (double& x : b) x = std::log(x);
    for (double& x : c) x = std::log(x);
  } else {
    const double scale = std::fabs(mean(base));
    if (!(scale > 0)) throw std::invalid_argument("between_round_test: baseline mean is 0 and values are not positive");
    for (double& x : b) x /= scale;
    for (double& x : c) x /= scale;
  }
  const double nb = static_cast<double>(b.size()), nc = static_cast<double>(c.size());
  r.effect = mean(c) - mean(b);
  r.observed_df = static_cast<int>(b.size() + c.size()) - 2;
  const double ss = sum_sq_dev(b) + sum_sq_dev(c);
  const double s2_obs = r.observed_df > 0 ? ss / r.observed_df : 0.0;
  r.observed_sd = std::sqrt(s2_obs);
  // On the log scale a relative sd is log(1 + sd) to first order; use it as is.
  const double prior_s2 = o.round_sd * o.round_sd;
  r.prior_set_aside = r.observed_df >= 2 && s2_obs > prior_s2 &&
                      f_upper_tail(s2_obs / prior_s2, r.observed_df, o.prior_df) < prior_misfit_p;
  if (r.prior_set_aside) {
    combine(s2_obs, r.observed_df, nb, nc, o.session_sd, o.session_df, r.se, r.df);
  } else {
    const double s2 = (o.prior_df * prior_s2 + r.observed_df * s2_obs) / (o.prior_df + r.observed_df);
    combine(s2, o.prior_df + r.observed_df, nb, nc, o.session_sd, o.session_df, r.se, r.df);
  }
  r.t = r.effect / r.se;
  r.p_value = std::min(1.0, student_t_two_sided_p(r.t, r.df));
  const double q = student_t_quantile(1 - o.alpha / 2, r.df);
  r.ci_low = r.effect - q * r.se;
  r.ci_high = r.effect + q * r.se;
  return r;
}

double minimum_detectable_pct(const round_test_options& o, int rounds, int rows, double power) {
  check(o);
  if (rounds < 1 || rows < 1 || !(power > 0 && power < 1))
    throw std::invalid_argument("minimum_detectable_pct: rounds and rows >= 1, power in (0, 1)");
  double se = 0, df = 0;
  const double n = rounds;
  combine(o.round_sd * o.round_sd, o.prior_df + 2 * (n - 1), n, n, o.session_sd, o.session_df, se, df);
  return detectable_pct(se, df, o.alpha, rows, power, true);
}

namespace {

// The exact t quantile costs a root search; compare asks for two per row and the simulations
// compare thousands of times. The mde is a planning number shown to two digits, so df is rounded
// to three significant digits (the quantile moves far less than that) and the quantiles cached.
double cached_quantile(double p, double df) {
  const double scale = std::pow(10.0, std::floor(std::log10(df)) - 2);
  const double key_df = std::max(std::round(df / scale) * scale, 1e-3);
  thread_local std::map<std::pair<double, double>, double> cache;
  const auto key = std::make_pair(p, key_df);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  if (cache.size() > 4096) cache.clear();
  return cache[key] = student_t_quantile(p, key_df);
}

}  // namespace

double detectable_pct(double se, double df, double alpha, int rows, double power, bool log_scale) {
  if (rows < 1 || !(power > 0 && power < 1) || !(alpha > 0 && alpha < 1) || !(se >= 0) || !(df > 0))
    throw std::invalid_argument("detectable_pct: rows >= 1, alpha and power in (0, 1), se >= 0, df > 0");
  const double crit = cached_quantile(1 - alpha / (2.0 * rows), df);
  const double z_power = cached_quantile(power, df);
  return effect_to_pct((crit + z_power) * se, log_scale);
}

}  // namespace cudabench
