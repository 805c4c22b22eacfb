// transformer_memory's train-mode forward and backward without a GPU: the model's real model.cpp,
// model_train.cpp and model_backward.cpp run on host stand-ins for the CUDA runtime and cuBLASLt
// (fake_cuda_runtime.cpp, fake_blaslt.cpp), with the real CUDA kernels -- attention forward and
// backward, LayerNorm, dropout, the backward's elementwise ops and column sums, the random fill --
// run by the kernel emulator (kernel_emu.hpp). Every output and every parameter's gradient must match the CPU double
// reference at dropout 0 and 0.1, with the model allocating exactly its plan. So this checks the
// wiring (GEMM transposes and shapes, buffer offsets, which saved tensor each step reads) and what
// the backward kernels compute. fp32 storage leaves ~1e-6; dropping one term (the memory's
// gradient from the cross-attention) misses by 1, a missing scale in the attention's dQ by 1.8, a
// LayerNorm dx without its warp reduction by 0.3.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "common/transformer_relu_plant.hpp"
#include "cudabench/device_memory.hpp"
#include "cudabench/gpu/blaslt.hpp"
#include "workloads/transformer_memory/model.hpp"
#include "workloads/transformer_memory/validate.hpp"

namespace cudabench {
namespace {

// validation_config's widths and layers (d_model 128, 2 heads, ff 256, 2+2), shorter sequences
// (src 20, tgt 9: different lengths, logsumexp strides rounded up) in chunks of one sequence.
transformer::config emulated_config(double p) {
  transformer::config c = transformer::validation_config(dtype::fp32);
  c.mode = transformer::run_mode::train;
  c.dropout = p;
  c.dropout_seed = 4321;
  c.backward = true;
  c.src_len = 20;
  c.tgt_len = 9;
  c.chunk_tokens = 32;
  return c;
}

TEST(TransformerBackwardEmulated, MatchesCpuReference) {
  for (double p : {0.0, 0.1}) {
    blaslt_context lt;
    const transformer::config c = emulated_config(p);
    const std::uint64_t before = memory_tracker::current();
    transformer::model m(lt, c);
    EXPECT_EQ(memory_tracker::current() - before, transformer::model::planned_bytes(c));
    m.init_random(31, nullptr);
    m.fill_grad_output(36, nullptr);
    const transformer::host_snapshot snap = transformer::snapshot(m);
    const validation_outcome f = transformer::compare_with_reference(m, snap, nullptr, 1e-5);
    std::printf("p %.1f forward: %s\n", p, f.message.c_str());
    EXPECT_TRUE(f.passed) << f.message;
    m.backward(nullptr);
    const validation_outcome g = transformer::compare_gradients(m, snap, 1e-5);
    std::printf("p %.1f backward: %s\n", p, g.message.c_str());
    EXPECT_TRUE(g.passed) << g.message;
  }
}

// A tie taken the other way passes; a ReLU far from zero taken the other way fails
// (tests/common/transformer_relu_plant.hpp plants them).
TEST(TransformerBackwardEmulated, AReluTieTakenTheOtherWayPasses) {
  for (double p : {0.0, 0.1}) {
    double plain_error = 0;
    const validation_outcome g =
        plants::check_with_planted_branch(emulated_config(p), plants::relu_plant::tie, &plain_error);
    std::printf(
        "p %.1f, a ReLU tie taken the other way: %s; against double's own branches the bias gradient is "
        "off by %.3g\n",
        p, g.message.c_str(), plain_error);
    EXPECT_TRUE(g.passed) << g.message;
    EXPECT_NE(g.message.find(" 1 of 29696 ReLU branches differ"), std::string::npos) << g.message;
    // What the branches are for: judged on double's own branch, the same correct backward fails.
    EXPECT_GT(plain_error, transformer::gradient_tolerance());
  }
}

TEST(TransformerBackwardEmulated, AReluFarFromZeroTakenTheOtherWayFails) {
  double plain_error = 0;
  const validation_outcome g =
      plants::check_with_planted_branch(emulated_config(0.0), plants::relu_plant::largest, &plain_error);
  std::printf("largest ReLU output zeroed: %s\n", g.message.c_str());
  EXPECT_FALSE(g.passed) << g.message;
  EXPECT_NE(g.message.find("the forward's ReLU is wrong"), std::string::npos) << g.message;
}

}  // namespace
}  // namespace cudabench
