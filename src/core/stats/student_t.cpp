// See student_t.hpp. The CDF goes through the regularized incomplete beta function,
//   P(|T| > t) = I_{df/(df+t^2)}(df/2, 1/2),
// evaluated with Lentz's continued fraction (the standard method, e.g. Numerical Recipes §6.4),
// which converges fast for every argument once the symmetry I_x(a,b) = 1 - I_{1-x}(b,a) puts x on
// the near side of the mean. The quantile inverts the CDF by bisection, for robustness; it is
// called once per comparison row, so a million-row comparison made it the slowest part of
// `compare`. The bisection is therefore steered by a Newton estimate of the root: wherever the
// midpoint is provably on one side of the root, the comparison with the estimate replaces a CDF
// evaluation. The result is bit-for-bit the plain bisection's (tests/unit/test_student_t.cpp
// checks that against a copy of it).
#include "cudabench/student_t.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace cudabench {
namespace {

double beta_continued_fraction(double a, double b, double x) {
  constexpr int max_iter = 500;
  constexpr double eps = 1e-15, tiny = 1e-300;
  const double qab = a + b, qap = a + 1, qam = a - 1;
  double c = 1, d = 1 - qab * x / qap;
  if (std::fabs(d) < tiny) d = tiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= max_iter; ++m) {
    const int m2 = 2 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (std::fabs(d) < tiny) d = tiny;
    c = 1 + aa / c;
    if (std::fabs(c) < tiny) c = tiny;
    d = 1 / d;
    const double del = d * c;
    h *= del;
    if (std::fabs(del - 1) < eps) break;
  }
  return h;
}

// I_x(a, b), the regularized incomplete beta function. `log_beta_front` is
// lgamma(a + b) - lgamma(a) - lgamma(b), which the caller computes once per df.
double incomplete_beta(double a, double b, double x, double log_beta_front) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double log_front = log_beta_front + a * std::log(x) + b * std::log1p(-x);
  const double front = std::exp(log_front);
  if (x < (a + 1) / (a + b + 2)) return front * beta_continued_fraction(a, b, x) / a;
  return 1 - front * beta_continued_fraction(b, a, 1 - x) / b;
}

double log_beta_front(double df) { return std::lgamma(df / 2 + 0.5) - std::lgamma(df / 2) - std::lgamma(0.5); }

// The CDF with the df-only constant precomputed: the same arithmetic as student_t_cdf.
double cdf_with_front(double t, double df, double front) {
  if (std::isinf(t)) return t > 0 ? 1.0 : 0.0;
  const double tail = 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t), front);  // P(T > |t|)
  return t >= 0 ? 1 - tail : tail;
}

// The density, with its df-only constant `log_norm` = lgamma((df + 1) / 2) - lgamma(df / 2) -
// log(df * pi) / 2 computed once.
double pdf(double t, double df, double log_norm) { return std::exp(log_norm - (df + 1) / 2 * std::log1p(t * t / df)); }

double pdf_log_norm(double df) {
  constexpr double pi = 3.14159265358979323846;
  return std::lgamma((df + 1) / 2) - std::lgamma(df / 2) - 0.5 * std::log(df * pi);
}

// The standard normal quantile to ~1e-9 (Acklam's rational approximation): a starting point.
double normal_quantile(double p) {
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  const double q = std::min(p, 1 - p);
  double z;
  if (q > 0.02425) {
    const double u = p - 0.5, r = u * u;
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * u /
           (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  }
  const double u = std::sqrt(-2 * std::log(q));
  z = (((((c[0] * u + c[1]) * u + c[2]) * u + c[3]) * u + c[4]) * u + c[5]) /
      ((((d[0] * u + d[1]) * u + d[2]) * u + d[3]) * u + 1);
  return p < 0.5 ? z : -z;
}

// The t quantile to ~1e-6 for df >= 3 (Cornish-Fisher expansion around the normal's): where
// Newton starts.
double t_quantile_estimate(double p, double df) {
  const double z = normal_quantile(p), z2 = z * z;
  const double g1 = (z2 + 1) * z / 4;
  const double g2 = ((5 * z2 + 16) * z2 + 3) * z / 96;
  const double g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384;
  const double g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160;
  return z + g1 / df + g2 / (df * df) + g3 / (df * df * df) + g4 / (df * df * df * df);
}

// A root of cdf(t) = p in [lo, hi]: Newton steps from `start`, bisection when a step would leave
// the bracket. Only a hint for the bisection below; its accuracy is verified there.
double newton_root(double p, double df, double front, double lo, double hi, double start) {
  const double log_norm = pdf_log_norm(df);
  double t = start > lo && start < hi ? start : 0.5 * (lo + hi);
  // A few steps suffice from the Cornish-Fisher start; the band below is no narrower than 2e-12,
  // and for large df the CDF's rounding noise would keep steps from ever getting much smaller.
  for (int i = 0; i < 12; ++i) {
    const double f = cdf_with_front(t, df, front) - p;
    (f < 0 ? lo : hi) = t;
    const double d = pdf(t, df, log_norm);
    double next = d > 0 ? t - f / d : 0.5 * (lo + hi);
    if (!(next > lo && next < hi)) next = 0.5 * (lo + hi);
    if (std::fabs(next - t) <= 1e-13 * std::max(1.0, std::fabs(t))) return next;
    t = next;
  }
  return t;
}

}  // namespace

double f_upper_tail(double f, double d1, double d2) {
  if (!(d1 > 0) || !(d2 > 0) || std::isnan(f))
    throw std::invalid_argument("f_upper_tail: d1, d2 must be > 0, f a number");
  if (f <= 0) return 1.0;
  if (std::isinf(f)) return 0.0;
  const double a = d2 / 2, b = d1 / 2;
  const double front = std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b);
  return incomplete_beta(a, b, d2 / (d2 + d1 * f), front);
}

double student_t_cdf(double t, double df) {
  if (!(df > 0)) throw std::invalid_argument("student_t_cdf: degrees of freedom must be positive");
  if (std::isnan(t)) throw std::invalid_argument("student_t_cdf: NaN argument");
  if (std::isinf(t)) return t > 0 ? 1.0 : 0.0;
  return cdf_with_front(t, df, log_beta_front(df));
}

double student_t_two_sided_p(double t, double df) {
  if (!(df > 0)) throw std::invalid_argument("student_t_two_sided_p: degrees of freedom must be positive");
  if (std::isnan(t)) throw std::invalid_argument("student_t_two_sided_p: NaN argument");
  if (std::isinf(t)) return 0.0;
  return incomplete_beta(df / 2, 0.5, df / (df + t * t), log_beta_front(df));
}

double student_t_quantile(double p, double df) {
  if (!(p > 0 && p < 1)) throw std::invalid_argument("student_t_quantile: p must be in (0, 1)");
  if (!(df > 0)) throw std::invalid_argument("student_t_quantile: degrees of freedom must be positive");
  if (p == 0.5) return 0;
  const double front = log_beta_front(df);
  auto cdf = [&](double t) { return cdf_with_front(t, df, front); };
  double lo = -1, hi = 1;
  // cdf(t) <= 0.5 for t <= 0 and >= 0.5 for t >= 0, so one of these loops can never run.
  if (p < 0.5)
    while (cdf(lo) > p) lo *= 2;
  if (p > 0.5)
    while (cdf(hi) < p) hi *= 2;
  // The steering: a root estimate `r` and a band around it outside which the bisection's test
  // cdf(mid) < p is known to come out as mid < r. That holds where the computed CDF is monotone up
  // to a noise far below `margin`, and the CDF at the band's edges differs from p by more than
  // the margin. The noise is dominated by the rounding of x = df / (df + t^2) times a = df / 2 in
  // a * log(x), about df * 5e-17 relative, plus ~1e-15 from the rest; `margin` is 40 times that.
  // Two places break monotonicity by more: the switch between incomplete_beta's two continued
  // fractions at x = (a + 1) / (a + b + 2), checked below on both sides, and the continued
  // fraction's 500-iteration cap, which large df reach (it needs ~sqrt(df / 2)): beyond df 2e5 the
  // plain bisection runs.
  bool steer = false;
  double r = 0, band = 0;
  if (df <= 2e5) {
    const double tail = std::min(p, 1 - p);
    const double margin = std::max(1e-13, 10 * tail * (df * 2e-16 + 1e-14));
    r = newton_root(p, df, front, lo, hi, df >= 3 ? t_quantile_estimate(p, df) : 0.5 * (lo + hi));
    band = std::max(2e-12 * std::max(1.0, std::fabs(r)), 2 * margin / std::max(pdf(r, df, pdf_log_norm(df)), 1e-300));
    for (int widen = 0; widen < 6 && !steer; ++widen, band *= 16)
      steer = cdf(r - band) < p - margin && cdf(r + band) > p + margin;
    if (steer) band /= 16;  // undo the loop's last step
    // The branch switch, |t| = sqrt(df * (b + 1) / (a + 1)) with a = df / 2, b = 1 / 2: where it
    // lies outside the band, the CDF just below and just above it must be on its side of p.
    const double a = df / 2, ts = std::copysign(std::sqrt(df * 1.5 / (a + 1)), r);
    if (steer && ts > lo && ts < hi && std::fabs(ts - r) > band) {
      const double below = cdf(ts - 1e-9 * std::fabs(ts)), above = cdf(ts + 1e-9 * std::fabs(ts));
      steer = ts < r ? below < p - margin && above < p - margin : below > p + margin && above > p + margin;
    }
  }
  for (int i = 0; i < 200 && hi - lo > 1e-12 * std::max(1.0, std::fabs(hi)); ++i) {
    const double mid = 0.5 * (lo + hi);
    const bool mid_below = steer && std::fabs(mid - r) > band ? mid < r : cdf(mid) < p;
    (mid_below ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

}  // namespace cudabench
