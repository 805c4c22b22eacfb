// How long each candidate's measurement in a tuner's contest lasts (tuner_measure.hpp): 2 ms unless
// CUDABENCH_TUNER_MEASURE_MS sets it, a bad value refused with a message that names the variable.
#include <cstdlib>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "cudabench/errors.hpp"
#include "cudabench/tuner_measure.hpp"

namespace cudabench {
namespace {

// Sets CUDABENCH_TUNER_MEASURE_MS for one test and restores what was there.
class MeasureEnv {
 public:
  explicit MeasureEnv(const char* value) {
    if (const char* was = std::getenv(kName)) {
      saved_ = was;
      had_ = true;
    }
    if (value) ::setenv(kName, value, 1);
    else ::unsetenv(kName);
  }
  ~MeasureEnv() {
    if (had_) ::setenv(kName, saved_.c_str(), 1);
    else ::unsetenv(kName);
  }
  MeasureEnv(const MeasureEnv&) = delete;
  MeasureEnv& operator=(const MeasureEnv&) = delete;

 private:
  static constexpr const char* kName = "CUDABENCH_TUNER_MEASURE_MS";
  std::string saved_;
  bool had_ = false;
};

TEST(TunerMeasure, TwoMillisecondsUnlessTheVariableSetsIt) {
  {
    MeasureEnv env(nullptr);
    EXPECT_DOUBLE_EQ(tuner_measure_ms(), 2.0);
  }
  {
    MeasureEnv env("");
    EXPECT_DOUBLE_EQ(tuner_measure_ms(), 2.0);
  }
  for (const auto& [text, want] : {std::pair{"20", 20.0}, {"0.1", 0.1}, {"1000", 1000.0}, {"2.5", 2.5}}) {
    MeasureEnv env(text);
    EXPECT_DOUBLE_EQ(tuner_measure_ms(), want) << text;
  }
}

TEST(TunerMeasure, ABadValueIsAnErrorThatNamesTheVariable) {
  for (const char* bad : {"0", "0.05", "1001", "-2", "abc", "20ms", "nan", "inf"}) {
    MeasureEnv env(bad);
    try {
      (void)tuner_measure_ms();
      ADD_FAILURE() << "accepted CUDABENCH_TUNER_MEASURE_MS=" << bad;
    } catch (const input_error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(std::string("CUDABENCH_TUNER_MEASURE_MS=") + bad + ":"), std::string::npos) << msg;
      EXPECT_NE(msg.find("not a time in ms from 0.1 to 1000"), std::string::npos) << msg;
    }
  }
}

}  // namespace
}  // namespace cudabench
