// compare refuses physically impossible samples (sample_rules.hpp) and never shows inf or nan as
// a change: negative or all-zero times once read as "+173% improved" / "+100% improved", and a
// 1e308 sample as "-inf%".
#include <cmath>
#include <limits>
#include <string>

#include <gtest/gtest.h>

#include "compare_fixtures.hpp"
#include "cudabench/compare.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/report.hpp"
#include "cudabench/sample_rules.hpp"

using namespace cudabench;
using cudabench::test::make_file;
using cudabench::test::single_metric_workload;

namespace {

workload_result with_samples(const std::string& unit, better dir, std::vector<double> samples) {
  workload_result w = single_metric_workload("w", "matmul", "m", unit, dir, {1.0});
  w.metrics[0].second.samples = std::move(samples);  // as a hostile file would have them
  return w;
}

std::string compare_error(const workload_result& a, const workload_result& b) {
  try {
    compare_results({make_file("A", {a}), make_file("B", {b})}, {"a.json", "b.json"}, {});
  } catch (const input_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(SampleRules, UnitsAreClassified) {
  EXPECT_EQ(classify_unit("ms"), unit_class::time);
  EXPECT_EQ(classify_unit("ms (cold)"), unit_class::time);
  EXPECT_EQ(classify_unit("TFLOP/s"), unit_class::rate);
  EXPECT_EQ(classify_unit("tokens/s"), unit_class::rate);
  EXPECT_EQ(classify_unit("GB/s"), unit_class::rate);
  EXPECT_EQ(classify_unit("MiB"), unit_class::size);
  EXPECT_EQ(classify_unit("GB"), unit_class::size);
  EXPECT_EQ(classify_unit("loss"), unit_class::other);
  EXPECT_EQ(classify_unit("Mcycles"), unit_class::energy);
  EXPECT_EQ(classify_unit("J"), unit_class::energy);
  EXPECT_EQ(classify_unit("J/token"), unit_class::energy);
  EXPECT_EQ(classify_unit("TFLOP/s/W"), unit_class::energy);
  EXPECT_EQ(*impossible_sample(-0.5, "J"), "-0.5 J is not possible (cycles and energy are >= 0)");
  EXPECT_FALSE(impossible_sample(0.5, "J/token"));
  EXPECT_FALSE(impossible_sample(0.001, "ms"));
  EXPECT_FALSE(impossible_sample(0, "TFLOP/s"));
  EXPECT_FALSE(impossible_sample(-3, "loss"));
  EXPECT_EQ(*impossible_sample(0, "ms"), "0 ms is not a possible time (times are > 0)");
  EXPECT_EQ(*impossible_sample(-1.5, "GB/s"), "-1.5 GB/s is not a possible rate (rates are >= 0)");
  EXPECT_EQ(*impossible_sample(-1, "MiB"), "-1 MiB is not a possible size (sizes are >= 0)");
  EXPECT_EQ(*impossible_sample(1e308, "ms"),
            "1e+308 ms is beyond any measurement (magnitudes above 1e+30 are refused)");
  EXPECT_EQ(*impossible_sample(std::numeric_limits<double>::infinity(), "x"), "inf x is not a finite number");
}

TEST(CompareImpossible, NegativeZeroAndHugeSamplesAreBadInput) {
  const auto good = with_samples("ms", better::lower, {1.0, 1.01, 0.99});
  EXPECT_EQ(compare_error(good, with_samples("ms", better::lower, {-0.5, -0.6, -0.4})),
            "b.json: workload w: metric m: sample 0: -0.5 ms is not a possible time (times are > 0)");
  EXPECT_EQ(compare_error(good, with_samples("ms", better::lower, {0, 0, 0})),
            "b.json: workload w: metric m: sample 0: 0 ms is not a possible time (times are > 0)");
  EXPECT_EQ(compare_error(with_samples("ms", better::lower, {1.0, 1e308, 1.0}), good),
            "a.json: workload w: metric m: sample 1: 1e+308 ms is beyond any measurement (magnitudes above 1e+30 are "
            "refused)");
  EXPECT_EQ(compare_error(with_samples("TFLOP/s", better::higher, {5, 5, 5}),
                          with_samples("TFLOP/s", better::higher, {5, -1, 5})),
            "b.json: workload w: metric m: sample 1: -1 TFLOP/s is not a possible rate (rates are >= 0)");
  // A rate of 0 is possible (a copy that moved nothing is a bug, but not an impossible number).
  EXPECT_EQ(compare_error(with_samples("GB/s", better::higher, {5, 5, 5}),
                          with_samples("GB/s", better::higher, {0, 0, 0})),
            "");
}

TEST(CompareImpossible, AChangeBeyondADoubleIsNeverInfOrNan) {
  // Allowed samples whose ratio overflows: 1e-300 ms against 1e29 ms.
  for (bool spread : {false, true}) {
    const auto a = with_samples("ms", better::lower,
                                spread ? std::vector<double>{1e-300, 1.1e-300, 0.9e-300}
                                       : std::vector<double>{1e-300, 1e-300, 1e-300});
    const auto b =
        with_samples("ms", better::lower,
                     spread ? std::vector<double>{1e29, 1.1e29, 0.9e29} : std::vector<double>{1e29, 1e29, 1e29});
    const comparison c = compare_results({make_file("A", {a}), make_file("B", {b})}, {"a.json", "b.json"}, {});
    const compare_change& ch = c.rows.at(0).changes.at(0);
    EXPECT_FALSE(ch.change_pct.has_value()) << spread;
    if (ch.ci_low_pct) {
      EXPECT_TRUE(std::isfinite(*ch.ci_low_pct));
      EXPECT_TRUE(std::isfinite(*ch.ci_high_pct));
    }
    EXPECT_NE(ch.note.find("the medians differ by more than a percentage can express"), std::string::npos) << ch.note;
    EXPECT_NE(ch.outcome, verdict::improved) << spread;
    for (const char* format : {"table", "markdown", "csv", "json"}) {
      std::ostringstream out;
      make_reporter(format)->report(c, out);
      for (const char* bad : {"inf", "nan", "NaN"})
        EXPECT_EQ(out.str().find(bad), std::string::npos) << format << out.str();
    }
  }
}
