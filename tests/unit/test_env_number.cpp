// Numbers from environment variables (env_number.hpp), and the tuners' measurement length that uses
// it (tuner_measure.hpp): unset or empty gives the default, a number in range is taken, anything else
// is an input_error that names the variable, its value and why.
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "cudabench/env_number.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/tuner_measure.hpp"
#include "scoped_env.hpp"

namespace cudabench {
namespace {

constexpr const char* kVar = "CUDABENCH_TEST_ENV_NUMBER";

std::string refusal(const char* value) {
  test::scoped_env env(kVar, value);
  try {
    (void)env_number(kVar, 1.0, 0.5, 10.0, "not from 0.5 to 10");
  } catch (const input_error& e) {
    return e.what();
  }
  return "accepted";
}

TEST(EnvNumber, UnsetOrEmptyIsTheDefaultAndARangeBoundIsIn) {
  {
    test::scoped_env env(kVar, nullptr);
    EXPECT_DOUBLE_EQ(env_number(kVar, 1.0, 0.5, 10.0, "why"), 1.0);
  }
  {
    test::scoped_env env(kVar, "");
    EXPECT_DOUBLE_EQ(env_number(kVar, 1.0, 0.5, 10.0, "why"), 1.0);
  }
  for (const auto& [text, want] : {std::pair{"0.5", 0.5}, {"10", 10.0}, {"2.25", 2.25}, {"1e0", 1.0}}) {
    test::scoped_env env(kVar, text);
    EXPECT_DOUBLE_EQ(env_number(kVar, 1.0, 0.5, 10.0, "why"), want) << text;
  }
}

TEST(EnvNumber, AnythingElseIsRefusedNamingTheVariableAndValue) {
  for (const char* bad : {"0.49", "10.01", "-1", "abc", "2ms", "nan", "inf", "1e9", "2 "})
    EXPECT_EQ(refusal(bad), std::string(kVar) + "=" + bad + ": not from 0.5 to 10") << bad;
}

TEST(TunerMeasure, TwoMillisecondsUnlessTheVariableSetsIt) {
  {
    test::scoped_env env("CUDABENCH_TUNER_MEASURE_MS", nullptr);
    EXPECT_DOUBLE_EQ(tuner_measure_ms(), 2.0);
  }
  {
    test::scoped_env env("CUDABENCH_TUNER_MEASURE_MS", "20");
    EXPECT_DOUBLE_EQ(tuner_measure_ms(), 20.0);
  }
  for (const char* bad : {"0.05", "1001"}) {
    test::scoped_env env("CUDABENCH_TUNER_MEASURE_MS", bad);
    EXPECT_THROW((void)tuner_measure_ms(), input_error) << bad;
  }
}

}  // namespace
}  // namespace cudabench
