// Mann–Whitney U p-values against exact known values and scipy 1.17.1.
// Reference values were computed with:
//   scipy.stats.mannwhitneyu(a, b, method="exact")                       (no ties)
//   scipy.stats.permutation_test((a, b), U, permutation_type="independent",
//                                n_resamples=np.inf, alternative="two-sided")  (ties: exact permutation)
//   scipy.stats.mannwhitneyu(a, b, method="asymptotic", use_continuity=True)   (large n)
#include <limits>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "cudabench/mann_whitney.hpp"

using cudabench::mann_whitney_u;

TEST(MannWhitney, FullySeparatedFiveVsFiveIsTwoOver252) {
  const auto r = mann_whitney_u({1, 2, 3, 4, 5}, {6, 7, 8, 9, 10});
  EXPECT_DOUBLE_EQ(r.p_value, 2.0 / 252.0);  // 0.0079365...: the smallest two-sided p for 5 vs 5
  EXPECT_DOUBLE_EQ(r.u, 0.0);
  EXPECT_TRUE(r.exact);
  EXPECT_FALSE(r.ties);
  // Symmetric in the order of the groups, and in the direction of the shift.
  EXPECT_DOUBLE_EQ(mann_whitney_u({6, 7, 8, 9, 10}, {1, 2, 3, 4, 5}).p_value, 2.0 / 252.0);
  EXPECT_DOUBLE_EQ(mann_whitney_u({6, 7, 8, 9, 10}, {1, 2, 3, 4, 5}).u, 25.0);
}

TEST(MannWhitney, OverlappingSamplesMatchScipyExact) {
  EXPECT_NEAR(mann_whitney_u({1.1, 2.3, 3.5, 4.2, 5.9}, {2.0, 3.9, 6.1, 7.4, 8.8}).p_value, 0.2222222222222222, 1e-12);
  EXPECT_DOUBLE_EQ(mann_whitney_u({1.1, 2.3, 3.5, 4.2, 5.9}, {2.0, 3.9, 6.1, 7.4, 8.8}).u, 6.0);
  EXPECT_NEAR(mann_whitney_u({0.5, 1.7, 2.2}, {1.0, 2.9, 3.1, 4.4}).p_value, 0.22857142857142856, 1e-12);
  EXPECT_NEAR(mann_whitney_u({10.2, 11.5, 9.8, 12.1, 10.9}, {11.0, 12.5, 13.1, 11.8, 12.9, 13.5, 10.5, 14.0}).p_value,
              0.04506604506604507, 1e-12);
  EXPECT_NEAR(mann_whitney_u({1.0, 2.05, 3.1, 4.15, 5.2, 6.25, 7.35, 8.35, 9.4, 10.45},
                             {3.3, 4.3, 5.3, 6.3, 7.3, 8.3, 9.3, 10.3, 11.3, 12.3})
                  .p_value,
              0.19031587607439004, 1e-12);
}

TEST(MannWhitney, TiesUseTheExactPermutationDistribution) {
  const auto r = mann_whitney_u({1, 2, 2, 3, 3}, {2, 3, 4, 4, 5});
  EXPECT_TRUE(r.ties);
  EXPECT_TRUE(r.exact);
  EXPECT_DOUBLE_EQ(r.u, 4.0);
  EXPECT_NEAR(r.p_value, 0.1111111111111111, 1e-12);
  EXPECT_NEAR(mann_whitney_u({0.21, 0.21, 0.20, 0.21, 0.22}, {0.20, 0.20, 0.19, 0.21, 0.20}).p_value, 0.1349206349206349,
              1e-12);
  EXPECT_NEAR(mann_whitney_u({5, 5, 6, 7}, {5, 6, 6, 8, 9, 9}).p_value, 0.23809523809523808, 1e-12);
}

TEST(MannWhitney, LargeSamplesUseNormalApproximationWithTieCorrection) {
  const std::vector<double> a = {10.0, 10.3, 9.7, 9.1,  9.5,  9.0, 10.1, 11.3, 9.5,  9.4, 10.5, 10.4, 10.1, 9.1,
                                 10.0, 10.7, 8.7, 9.5,  8.1,  8.7, 8.2,  9.8,  8.7,  10.3, 10.2, 9.8, 7.5,  9.5,
                                 10.0, 10.1, 8.5, 9.5,  9.0,  9.2, 11.1, 9.2,  10.0, 10.9, 9.4,  9.9};
  const std::vector<double> b = {10.7, 10.7, 9.4,  10.7, 12.0, 9.1,  11.5, 10.7, 10.0, 12.6, 11.4, 9.4, 10.7, 11.2,
                                 10.4, 11.3, 10.5, 11.3, 12.0, 9.9,  10.8, 10.1, 10.7, 9.4,  10.0, 10.4, 11.5, 11.7,
                                 9.3,  9.8,  11.2, 8.6,  10.1, 10.5, 11.9, 11.3, 10.3, 10.2, 10.3, 12.1};
  const auto r = mann_whitney_u(a, b);
  EXPECT_FALSE(r.exact);
  EXPECT_TRUE(r.ties);
  EXPECT_DOUBLE_EQ(r.u, 324.5);
  EXPECT_NEAR(r.p_value, 4.7394505722074315e-06, 1e-15);
}

TEST(MannWhitney, DegenerateCasesGivePOne) {
  EXPECT_DOUBLE_EQ(mann_whitney_u({1.0}, {2.0}).p_value, 1.0);          // 1 vs 1 can never be significant
  EXPECT_DOUBLE_EQ(mann_whitney_u({3, 3, 3}, {3, 3, 3}).p_value, 1.0);  // all tied
  EXPECT_DOUBLE_EQ(mann_whitney_u({1, 2, 3}, {1, 2, 3}).p_value, 1.0);
  // 3 vs 3 fully separated: 2/20, never below 0.05.
  EXPECT_DOUBLE_EQ(mann_whitney_u({1, 2, 3}, {4, 5, 6}).p_value, 0.1);
}

TEST(MannWhitney, RejectsEmptyAndNonFinite) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_THROW(mann_whitney_u({}, {1.0}), std::invalid_argument);
  EXPECT_THROW(mann_whitney_u({1.0}, {}), std::invalid_argument);
  EXPECT_THROW(mann_whitney_u({1.0, nan}, {1.0}), std::invalid_argument);
  EXPECT_THROW(mann_whitney_u({1.0}, {std::numeric_limits<double>::infinity()}), std::invalid_argument);
}
