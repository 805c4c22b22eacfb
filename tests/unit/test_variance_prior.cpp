// The empirical-Bayes variance prior (variance_prior.hpp): the polygamma functions against values
// from mpmath (30 digits), and the fit recovering a known prior from simulated row variances.
#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "cudabench/variance_prior.hpp"

using namespace cudabench;

TEST(VariancePrior, PolygammaMatchesMpmath) {
  const double x[] = {0.5, 1, 2.5, 7.9, 30};
  const double psi0[] = {-1.9635100260214235, -0.57721566490153286, 0.70315664064524319, 2.002238487563571,
                         3.3844381326855249};
  const double psi1[] = {4.9348022005446793, 1.6449340668482264, 0.49035775610023486, 0.13493078345663442,
                         0.033895060357739944};
  const double psi2[] = {-16.82879664423432, -2.4041138063191886, -0.2362040516417274, -0.018179004838322605,
                         -0.0011487652037285998};
  for (int i = 0; i < 5; ++i) {
    EXPECT_NEAR(digamma(x[i]), psi0[i], 1e-13) << x[i];
    EXPECT_NEAR(trigamma(x[i]) / psi1[i], 1.0, 1e-13) << x[i];
    EXPECT_NEAR(tetragamma(x[i]) / psi2[i], 1.0, 1e-12) << x[i];
  }
  EXPECT_THROW(digamma(0), std::invalid_argument);
  EXPECT_THROW(trigamma(-1), std::invalid_argument);
}

TEST(VariancePrior, TrigammaInverseInvertsOverTheWholeRange) {
  for (double x : {1e-5, 0.003, 0.2, 1.0, 3.7, 50.0, 4e3, 2e6}) {
    const double y = trigamma(x);
    EXPECT_NEAR(trigamma_inverse(y) / x, 1.0, 1e-6) << x;
  }
  EXPECT_THROW(trigamma_inverse(0), std::invalid_argument);
}

namespace {
// n rows, each a sample variance with `df` df around a true variance drawn from the prior
// s0^2 * d0 / chi2_d0 (d0 = infinity: every row's true variance is s0^2).
std::vector<double> draw_rows(int n, double df, double s0sq, double d0, std::mt19937_64& rng) {
  std::chi_squared_distribution<double> obs(df);
  std::vector<double> out;
  for (int i = 0; i < n; ++i) {
    double truth = s0sq;
    if (std::isfinite(d0)) truth = s0sq * d0 / std::chi_squared_distribution<double>(d0)(rng);
    out.push_back(truth * obs(rng) / df);
  }
  return out;
}
}  // namespace

TEST(VariancePrior, RecoversAKnownPriorFromManyRows) {
  std::mt19937_64 rng(7);
  const auto s2 = draw_rows(4000, 6, 1e-4, 5, rng);
  const auto fit = fit_variance_prior(s2, std::vector<double>(s2.size(), 6.0));
  ASSERT_TRUE(fit);
  EXPECT_EQ(fit->rows, 4000);
  EXPECT_NEAR(fit->df, 5, 0.8);
  EXPECT_NEAR(fit->s2 / 1e-4, 1.0, 0.05);
}

TEST(VariancePrior, RowsWithOneTrueVarianceGiveALargeWeight) {
  std::mt19937_64 rng(11);
  const auto s2 = draw_rows(4000, 4, 4e-6, INFINITY, rng);
  const auto fit = fit_variance_prior(s2, std::vector<double>(s2.size(), 4.0));
  ASSERT_TRUE(fit);
  // The fit takes the upper confidence bound of the rows' spread (variance_prior.cpp), so even
  // 4000 identical rows give a finite weight; it is still far above compare's --prior-df (10).
  EXPECT_GT(fit->df, 40);
  EXPECT_NEAR(fit->s2 / 4e-6, 1.0, 0.05);
}

TEST(VariancePrior, RowsOfVeryDifferentNoiseGiveASmallWeight) {
  // A 0.1% row beside a 20% row (a GEMM and a pageable copy): their own rounds must decide.
  std::vector<double> s2, df;
  std::mt19937_64 rng(3);
  for (double sd : {0.001, 0.002, 0.0005, 0.2, 0.15, 0.01, 0.03, 0.0008}) {
    s2.push_back(sd * sd * std::chi_squared_distribution<double>(6)(rng) / 6);
    df.push_back(6);
  }
  const auto fit = fit_variance_prior(s2, df);
  ASSERT_TRUE(fit);
  EXPECT_LT(fit->df, 1.0);
}

TEST(VariancePrior, TooFewRowsOrBadInputAreRefused) {
  EXPECT_FALSE(fit_variance_prior({1e-4, 2e-4, 3e-4}, {2, 2, 2}));
  EXPECT_THROW(fit_variance_prior({1e-4, 2e-4}, {2}), std::invalid_argument);
  EXPECT_THROW(fit_variance_prior({1e-4, 0, 1e-4, 1e-4}, {2, 2, 2, 2}), std::invalid_argument);
  EXPECT_THROW(fit_variance_prior({1e-4, 1e-4, 1e-4, 1e-4}, {2, 0, 2, 2}), std::invalid_argument);
}
