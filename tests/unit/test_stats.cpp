#include <cmath>
#include <limits>
#include <stdexcept>

#include <gtest/gtest.h>

#include "cudabench/stats.hpp"

using cudabench::summarize;

TEST(Stats, OddCountExactValues) {
  const auto s = summarize({3.0, 1.0, 2.0, 5.0, 4.0});
  EXPECT_DOUBLE_EQ(s.median, 3.0);
  EXPECT_DOUBLE_EQ(s.mean, 3.0);
  EXPECT_DOUBLE_EQ(s.min, 1.0);
  EXPECT_DOUBLE_EQ(s.max, 5.0);
  EXPECT_DOUBLE_EQ(s.stddev, std::sqrt(2.5));  // sample stddev of 1..5
}

TEST(Stats, EvenCountMedianAveragesMiddlePair) { EXPECT_DOUBLE_EQ(summarize({4.0, 1.0, 3.0, 2.0}).median, 2.5); }

TEST(Stats, SingleSampleHasZeroStddev) {
  const auto s = summarize({0.21});
  EXPECT_DOUBLE_EQ(s.median, 0.21);
  EXPECT_DOUBLE_EQ(s.stddev, 0.0);
}

TEST(Stats, RejectsEmptyAndNonFinite) {
  EXPECT_THROW(summarize({}), std::invalid_argument);
  EXPECT_THROW(summarize({1.0, std::numeric_limits<double>::quiet_NaN()}), std::invalid_argument);
  EXPECT_THROW(summarize({std::numeric_limits<double>::infinity()}), std::invalid_argument);
}
