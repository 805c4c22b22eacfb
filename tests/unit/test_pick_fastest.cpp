// The rule every setup tuner chooses by (pick_fastest.hpp): the earliest candidate within the tie
// margin of the fastest, candidates that could not run never chosen, and the margin's override
// CUDABENCH_TUNER_TIE_MARGIN validated with a message that names it.
#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudabench/errors.hpp"
#include "cudabench/pick_fastest.hpp"
#include "scoped_env.hpp"

namespace cudabench {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// CUDABENCH_TUNER_TIE_MARGIN for one test's scope.
class TieMarginEnv : public test::scoped_env {
 public:
  explicit TieMarginEnv(const char* value) : scoped_env("CUDABENCH_TUNER_TIE_MARGIN", value) {}
};

TEST(PickFastest, EarliestCandidateWithinTheMarginWins) {
  // 1.02 is within 3% of 1.00: the earlier candidate keeps the choice.
  EXPECT_EQ(pick_fastest({1.02, 1.00, 1.10}, 0.03), 0u);
  // 1.04 is not: the fastest wins.
  EXPECT_EQ(pick_fastest({1.04, 1.00, 1.10}, 0.03), 1u);
  // The boundary itself is a tie (<=).
  EXPECT_EQ(pick_fastest({1.25, 1.00}, 0.25), 0u);
  // Margin 0: strictly the fastest; among equal times the earliest.
  EXPECT_EQ(pick_fastest({1.001, 1.00, 1.00}, 0.0), 1u);
}

TEST(PickFastest, CandidatesThatCouldNotRunAreNeverChosen) {
  EXPECT_EQ(pick_fastest({kNaN, 1.01, 1.00}, 0.03), 1u);
  EXPECT_EQ(pick_fastest({-1.0, kInf, 2.0}, 0.03), 2u);
  EXPECT_THROW(pick_fastest({kNaN, kInf, -1.0}, 0.03), std::invalid_argument);
  EXPECT_THROW(pick_fastest({}, 0.03), std::invalid_argument);
  EXPECT_THROW(pick_fastest({1.0}, -0.01), std::invalid_argument);
}

TEST(PickFastest, TheMarginIsHalfAPercentUnlessTheVariableSetsIt) {
  {
    TieMarginEnv env(nullptr);
    EXPECT_DOUBLE_EQ(tuner_tie_margin(), 0.005);
    EXPECT_EQ(pick_fastest({1.025, 1.00}), 1u);  // the H100's attention splits, 2.5% apart: not a tie
    EXPECT_EQ(pick_fastest({1.004, 1.00}), 0u);
  }
  {
    TieMarginEnv env("");
    EXPECT_DOUBLE_EQ(tuner_tie_margin(), 0.005);
  }
  {
    TieMarginEnv env("0.03");  // the old rule
    EXPECT_DOUBLE_EQ(tuner_tie_margin(), 0.03);
    EXPECT_EQ(pick_fastest({1.025, 1.00}), 0u);  // a tie: the earlier (slower) split kept
  }
  {
    TieMarginEnv env("0");
    EXPECT_EQ(pick_fastest({1.0001, 1.00}), 1u);
  }
}

TEST(PickFastest, ABadMarginIsAnErrorThatNamesTheVariable) {
  for (const char* bad : {"3", "0.51", "-0.01", "abc", "0.03x", "nan", "1e9"}) {
    TieMarginEnv env(bad);
    try {
      (void)tuner_tie_margin();
      ADD_FAILURE() << "accepted CUDABENCH_TUNER_TIE_MARGIN=" << bad;
    } catch (const input_error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(std::string("CUDABENCH_TUNER_TIE_MARGIN=") + bad + ":"), std::string::npos) << msg;
      EXPECT_NE(msg.find("not a fraction from 0 to 0.5"), std::string::npos) << msg;
    }
  }
}

}  // namespace
}  // namespace cudabench
