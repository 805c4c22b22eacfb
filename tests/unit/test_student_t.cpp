// student_t_quantile steers its bisection with a Newton estimate (student_t.cpp) for speed; its
// answers must stay bit-for-bit those of the plain bisection, which compare's golden files (and
// every recorded comparison) were computed with. The plain bisection is kept here as the oracle.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "cudabench/student_t.hpp"

namespace {

double plain_bisection_quantile(double p, double df) {
  using cudabench::student_t_cdf;
  if (p == 0.5) return 0;
  double lo = -1, hi = 1;
  while (student_t_cdf(lo, df) > p) lo *= 2;
  while (student_t_cdf(hi, df) < p) hi *= 2;
  for (int i = 0; i < 200 && hi - lo > 1e-12 * std::max(1.0, std::fabs(hi)); ++i) {
    const double mid = 0.5 * (lo + hi);
    (student_t_cdf(mid, df) < p ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

void expect_same(double p, double df) {
  const double steered = cudabench::student_t_quantile(p, df), plain = plain_bisection_quantile(p, df);
  // Bitwise: EXPECT_EQ on doubles is exact.
  EXPECT_EQ(steered, plain) << "p " << p << " df " << df << " differs by " << steered - plain;
}

}  // namespace

TEST(StudentTQuantile, SteeredBisectionIsBitIdenticalOnAGrid) {
  for (double df : {0.5, 1.0, 1.5, 2.0, 3.0, 5.0, 10.0, 17.3, 18.0, 30.0, 100.0, 1e3, 1e4, 1e5, 1e6, 1e8, 1e10, 1e13})
    for (double p : {1e-9, 1e-6, 0.001, 0.0125, 0.025, 0.05, 0.2, 0.5, 0.8, 0.95, 0.975, 0.99, 0.999, 0.999375,
                     1 - 1e-6, 1 - 1e-9})
      expect_same(p, df);
}

TEST(StudentTQuantile, SteeredBisectionIsBitIdenticalOnRandomInputs) {
  // What compare asks for: p = 1 - alpha / 2 and df from the Welch-Satterthwaite combination,
  // anywhere from a few to millions; in varying order, since the steering starts from the last
  // answer.
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<double> log_df(std::log(0.8), std::log(1e9));
  std::uniform_real_distribution<double> log_alpha(std::log(1e-8), std::log(0.5));
  for (int i = 0; i < 3000; ++i) {
    const double df = std::exp(log_df(rng));
    const double alpha = std::exp(log_alpha(rng));
    expect_same(i % 2 ? 1 - alpha / 2 : alpha / 2, df);
  }
}
