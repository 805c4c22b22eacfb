// transformer_memory's `backward` parameter as the workload reads it: only with mode train, only
// fp32 (the suite parser cannot say "requires another parameter's value", so the workload's
// constructor refuses, as it does `dropout` without train). Constructing the workload calls no
// CUDA, so this runs without a GPU.
#include <string>

#include <gtest/gtest.h>

#include "cudabench/errors.hpp"
#include "cudabench/registry.hpp"

namespace cudabench {
namespace {

std::string refusal(nlohmann::ordered_json extra) {
  workload_spec spec;
  spec.id = "transformer_memory/t";
  spec.kind = "transformer_memory";
  spec.params = {{"batch", 2}, {"seq_len", 16}, {"dtype", "fp32"}, {"weights", "random"}};
  for (auto& [k, v] : extra.items()) spec.params[k] = v;
  try {
    find_kind("transformer_memory")->make(spec);
  } catch (const input_error& e) {
    return e.what();
  }
  return "";
}

TEST(TransformerBackwardParam, RefusedOutsideTrainMode) {
  EXPECT_NE(refusal({{"backward", true}}).find("backward applies only with mode \"train\""), std::string::npos);
  EXPECT_NE(refusal({{"mode", "inference"}, {"backward", false}}).find("backward applies only"), std::string::npos);
}

TEST(TransformerBackwardParam, RefusedForFp16) {
  EXPECT_NE(refusal({{"mode", "train"}, {"backward", true}, {"dtype", "fp16"}}).find("backward: only dtype fp32"),
            std::string::npos);
}

TEST(TransformerBackwardParam, AcceptedInTrainMode) {
  EXPECT_EQ(refusal({{"mode", "train"}, {"backward", true}}), "");
  EXPECT_EQ(refusal({{"mode", "train"}, {"backward", false}}), "");
}

}  // namespace
}  // namespace cudabench
