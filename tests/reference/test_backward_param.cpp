// transformer_memory's `backward` parameter as the workload reads it: only with mode train, only
// fp32 (the suite parser cannot say "requires another parameter's value", so the workload's
// constructor refuses, as it does `dropout` without train); and the bytes it adds to the plan,
// by hand for the default shape. Neither calls CUDA, so this runs without a GPU.
#include <string>

#include <gtest/gtest.h>

#include "cudabench/errors.hpp"
#include "cudabench/gpu/registry.hpp"
#include "workloads/transformer_memory/model.hpp"

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

// Batch 32, seq 512, fp32 (docs/transformer-train-memory.md "Backward"), T = 16384 tokens, D = 512,
// F = 2048, in floats: gradients 44,140,544 (the parameters, each padded to 64 elements); two
// stream gradients, the dropout's and the attention output's 4 T*D = 33,554,432; dq/dk/dv 3 T*D =
// 25,165,824; hidden T*F = 33,554,432; memory and G 2 T*D = 16,777,216; one float per (batch,
// head, query) 131,072: 153,323,520 floats = 613,294,080 bytes = 584.88 MiB -- less the hidden
// gradient's T*F (134,217,728 bytes) at p > 0, where it reuses the hidden dropout's saved output:
// 479,076,352 bytes = 456.88 MiB. At p = 0 the hidden buffer is there and the dropout's T*D
// (33,554,432 bytes) is not.
TEST(TransformerBackwardMemory, DefaultShapeBytesByHand) {
  transformer::config c;
  c.batch = 32;
  c.mode = transformer::run_mode::train;
  c.dropout = 0.1;
  c.backward = true;
  EXPECT_EQ(transformer::model::backward_bytes(c), 613294080u - 134217728u);
  c.dropout = 0;
  EXPECT_EQ(transformer::model::backward_bytes(c), 613294080u - 33554432u);
}

}  // namespace
}  // namespace cudabench
