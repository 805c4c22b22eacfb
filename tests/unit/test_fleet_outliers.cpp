// The outlier rule (fleet_outliers.hpp) on plain numbers: a planted slow GPU is flagged, a uniform
// fleet flags nothing (even with a MAD of 0), small fleets are not judged, and a kind's session
// noise raises the floor.
#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "cudabench/fleet_outliers.hpp"

using namespace cudabench;

namespace {

// n GPUs around 1.0 with relative noise sd (one fixed seed per test).
std::vector<double> fleet(int n, double sd, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> noise(0.0, sd);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) v.push_back(1.0 * (1.0 + noise(rng)));
  return v;
}

int flagged(const outlier_analysis& a) {
  int n = 0;
  for (const auto& v : a.per_value) n += v.outlier;
  return n;
}

}  // namespace

TEST(FleetOutliers, APlantedSlowGpuIsFlaggedAndOnlyIt) {
  std::vector<double> v = fleet(8, 0.005, 1);
  v[5] *= 1.15;  // 15% slower
  const outlier_analysis a = find_outliers(v, 0.02, outlier_rule{});
  ASSERT_TRUE(a.judged);
  EXPECT_EQ(flagged(a), 1);
  EXPECT_TRUE(a.per_value[5].outlier);
  EXPECT_NEAR(a.per_value[5].deviation_pct, 15.0, 1.5);
  EXPECT_GT(a.per_value[5].robust_z, 3.5);
  EXPECT_NEAR(a.spread_pct, 15.0, 2.0);
}

TEST(FleetOutliers, AUniformFleetFlagsNothingAcrossManyDraws) {
  // 0.5% between identical GPUs: the z of the extremes is often beyond 3.5 with 64 GPUs, but no
  // deviation reaches the 6% floor (max of 5% and 3 x 2% session noise).
  for (unsigned seed = 0; seed < 200; ++seed) {
    const outlier_analysis a = find_outliers(fleet(64, 0.005, seed), 0.02, outlier_rule{});
    ASSERT_EQ(flagged(a), 0) << "seed " << seed;
  }
}

TEST(FleetOutliers, AZeroMadDoesNotMakeATinyDifferenceAnOutlier) {
  const std::vector<double> v{1.0, 1.0, 1.0, 1.0, 1.01};
  const outlier_analysis a = find_outliers(v, 0.0, outlier_rule{});
  EXPECT_EQ(a.mad, 0.0);
  EXPECT_TRUE(std::isinf(a.per_value[4].robust_z));
  EXPECT_FALSE(a.per_value[4].outlier);  // 1% < the 5% minimum
  const std::vector<double> w{1.0, 1.0, 1.0, 1.0, 1.3};
  EXPECT_TRUE(find_outliers(w, 0.0, outlier_rule{}).per_value[4].outlier);
}

TEST(FleetOutliers, AFastOutlierIsFlaggedToo) {
  std::vector<double> v = fleet(6, 0.004, 2);
  v[0] *= 0.8;
  const outlier_analysis a = find_outliers(v, 0.02, outlier_rule{});
  EXPECT_TRUE(a.per_value[0].outlier);
  EXPECT_LT(a.per_value[0].deviation_pct, -15.0);
  EXPECT_EQ(flagged(a), 1);
}

TEST(FleetOutliers, TwoGpusAreNotJudged) {
  const outlier_analysis a = find_outliers({1.0, 1.5}, 0.02, outlier_rule{});
  EXPECT_FALSE(a.judged);
  EXPECT_EQ(flagged(a), 0);
  EXPECT_NEAR(a.spread_pct, 40.0, 1e-9);  // the spread is still reported
}

TEST(FleetOutliers, TheKindsSessionNoiseRaisesTheFloor) {
  std::vector<double> v = fleet(8, 0.005, 3);
  v[2] *= 1.2;                                                               // 20% off
  EXPECT_TRUE(find_outliers(v, 0.02, outlier_rule{}).per_value[2].outlier);  // floor 6%
  const outlier_analysis noisy = find_outliers(v, 0.10, outlier_rule{});     // a 1024^3 GEMM: floor 30%
  EXPECT_DOUBLE_EQ(noisy.floor_pct, 30.0);
  EXPECT_FALSE(noisy.per_value[2].outlier);
}

TEST(FleetOutliers, BadInputThrows) {
  EXPECT_THROW(find_outliers({}, 0.02, outlier_rule{}), std::invalid_argument);
  EXPECT_THROW(find_outliers({1.0, NAN}, 0.02, outlier_rule{}), std::invalid_argument);
}
