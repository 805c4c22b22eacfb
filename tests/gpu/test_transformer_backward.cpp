// transformer_memory's backward (mode train, backward: true) on the GPU: every parameter's
// gradient against the CPU double reference backward (reference_backward.hpp, itself checked
// against finite differences by tests/reference) at dropout 0 and 0.1 with the same masks;
// validation failing when one gradient tensor is off by 1%; gradients zeroed per repetition (two
// backwards agree); the memory -- exactly the plan, the backward allocating nothing; and a
// backward row through the CLI.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "common/transformer_relu_plant.hpp"
#include "cudabench/device_memory.hpp"
#include "cudabench/gpu/blaslt.hpp"
#include "cudabench/gpu/cuda_check.hpp"
#include "cudabench/result.hpp"
#include "gpu_test_fixture.hpp"
#include "workloads/transformer_memory/model.hpp"
#include "workloads/transformer_memory/validate.hpp"

namespace cudabench {
namespace {

namespace fs = std::filesystem;
#define REQUIRE_GPU() CUDABENCH_REQUIRE_GPU("transformer_memory backward GPU tests skipped")

transformer::config backward_config(double p) {
  transformer::config c = transformer::validation_config(dtype::fp32);
  c.mode = transformer::run_mode::train;
  c.dropout = p;
  c.dropout_seed = 4321;
  c.backward = true;
  return c;
}

// Forward + backward of a seeded small model; returns the snapshot for the reference.
transformer::host_snapshot run_backward(transformer::model& m, std::uint64_t seed) {
  m.init_random(seed, nullptr);
  m.fill_grad_output(seed + 5, nullptr);
  transformer::host_snapshot snap = transformer::snapshot(m);
  m.forward(nullptr);
  m.backward(nullptr);
  CUDABENCH_CHECK_CUDA(cudaDeviceSynchronize());
  return snap;
}

TEST(TransformerBackwardGpu, GradientsMatchCpuReference) {
  REQUIRE_GPU();
  for (double p : {0.0, 0.1}) {
    blaslt_context lt;
    transformer::model m(lt, backward_config(p));
    const transformer::host_snapshot snap = run_backward(m, 31);
    const validation_outcome v = transformer::compare_gradients(m, snap, transformer::gradient_tolerance());
    std::printf("p %.1f: %s\n", p, v.message.c_str());
    EXPECT_TRUE(v.passed) << v.message;
    EXPECT_LE(v.max_rel_error, transformer::gradient_tolerance());
  }
}

// The reference follows the GPU's ReLU branches (reference_backward.hpp): an input planted within
// rounding of zero and taken the other way passes, and is counted; the largest input zeroed (a
// wrong ReLU, not a tie) fails (tests/common/transformer_relu_plant.hpp).
TEST(TransformerBackwardGpu, AReluTieTakenTheOtherWayPassesAndAWrongReluFails) {
  REQUIRE_GPU();
  for (double p : {0.0, 0.1}) {
    double plain_error = 0;
    const validation_outcome tie =
        plants::check_with_planted_branch(backward_config(p), plants::relu_plant::tie, &plain_error);
    std::printf("p %.1f, a ReLU tie taken the other way: %s; against double's own branches off by %.3g\n", p,
                tie.message.c_str(), plain_error);
    EXPECT_TRUE(tie.passed) << tie.message;
    // Judged on double's own branch, the same backward moves by one token's contribution: far above
    // fp32 rounding (~5e-7 here), and at this shape near the 1e-3 tolerance (H200: 6.2e-4 at p = 0,
    // 1.2e-3 at p = 0.1 for this element), so a flip could fail or pass a correct row by chance.
    EXPECT_GT(plain_error, 1e-4);
  }
  double plain_error = 0;
  const validation_outcome wrong =
      plants::check_with_planted_branch(backward_config(0.0), plants::relu_plant::largest, &plain_error);
  std::printf("largest ReLU output zeroed: %s\n", wrong.message.c_str());
  EXPECT_FALSE(wrong.passed) << wrong.message;
  EXPECT_NE(wrong.message.find("the forward's ReLU is wrong"), std::string::npos) << wrong.message;
}

// Negative control: one tensor's gradient scaled by 1.01 (a 1% error, 10x the tolerance) fails
// validation and is named as the worst.
TEST(TransformerBackwardGpu, PerturbedGradientFailsValidation) {
  REQUIRE_GPU();
  blaslt_context lt;
  transformer::model m(lt, backward_config(0.1));
  const transformer::host_snapshot snap = run_backward(m, 32);
  const std::string name = "decoder.layers.1.multihead_attn.in_proj_weight";
  const std::size_t n = m.params().entry(name).numel;
  std::vector<float> g = transformer::download_floats(m.gradient(name), n, dtype::fp32);
  for (float& v : g) v *= 1.01f;
  CUDABENCH_CHECK_CUDA(cudaMemcpy(m.gradient(name), g.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  const validation_outcome v = transformer::compare_gradients(m, snap, transformer::gradient_tolerance());
  std::printf("perturbed: %s\n", v.message.c_str());
  EXPECT_FALSE(v.passed);
  EXPECT_GT(v.max_rel_error, 5e-3);
  EXPECT_NE(v.message.find(name), std::string::npos) << v.message;
}

// Gradients are zeroed by each backward, not accumulated across repetitions, and they are
// reproducible: a second forward + backward gives the first's gradients bit for bit (the column
// sums have no atomics; cuBLAS is bitwise reproducible on one GPU with its default atomics mode).
TEST(TransformerBackwardGpu, RepetitionsDoNotAccumulateAndReproduce) {
  REQUIRE_GPU();
  blaslt_context lt;
  transformer::model m(lt, backward_config(0.1));
  run_backward(m, 33);
  const std::vector<std::string> names = {"encoder.layers.0.linear1.bias", "decoder.layers.1.norm2.weight",
                                          "decoder.norm.bias"};
  std::vector<std::vector<float>> first;
  for (const auto& name : names)
    first.push_back(transformer::download_floats(m.gradient(name), m.params().entry(name).numel, dtype::fp32));
  m.forward(nullptr);
  m.backward(nullptr);
  for (std::size_t k = 0; k < names.size(); ++k) {
    const std::vector<float> second =
        transformer::download_floats(m.gradient(names[k]), m.params().entry(names[k]).numel, dtype::fp32);
    double scale = 0;
    for (float v : first[k]) scale = std::max(scale, static_cast<double>(std::fabs(v)));
    EXPECT_GT(scale, 0) << names[k];
    EXPECT_EQ(second, first[k]) << names[k];
  }
}

// Memory: construction allocates exactly planned_bytes, forward + backward allocate nothing, and
// the backward adds backward_bytes (gradients + its buffers) to the train forward's plan.
TEST(TransformerBackwardGpu, PeakIsThePlan) {
  REQUIRE_GPU();
  blaslt_context lt;
  const transformer::config c = backward_config(0.1);
  const std::uint64_t before = memory_tracker::current();
  memory_tracker::reset_peak();
  {
    transformer::model m(lt, c);
    run_backward(m, 34);
    const std::uint64_t bytes = memory_tracker::peak() - before;
    EXPECT_EQ(memory_tracker::current() - before, bytes) << "forward/backward must not allocate";
    EXPECT_EQ(bytes, transformer::model::planned_bytes(c));
  }
  transformer::config no_bw = c;
  no_bw.backward = false;
  EXPECT_EQ(transformer::model::planned_bytes(c),
            transformer::model::planned_bytes(no_bw) + transformer::model::backward_bytes(c));
}

// A backward row through the CLI: it validates (forward and gradients against the reference)
// and reports the usual metrics plus forward_ms and backward_ms, a sample each per repetition.
TEST(TransformerBackwardGpu, CliRowRuns) {
  REQUIRE_GPU();
  const fs::path dir = fs::temp_directory_path();
  const fs::path suite = dir / "cudabench_backward_suite.json", out = dir / "cudabench_backward.json";
  std::ofstream(suite) << R"({"name": "t", "workloads": [
    {"kind": "transformer_memory", "batch": 2, "seq_len": 64, "mode": "train", "backward": true}]})";
  fs::remove(out);
  const std::string cmd = std::string(CUDABENCH_BINARY) + " --suite " + suite.string() +
                          " --reps 2 --warmup 1 --min-time-ms 2 -q -o " + out.string() + " > /dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const result_file r = read_result_file(out.string());
  ASSERT_EQ(r.workloads.size(), 1u);
  EXPECT_EQ(r.workloads[0].state, status::ok) << r.workloads[0].message;
  ASSERT_TRUE(r.workloads[0].validation.has_value());
  EXPECT_TRUE(r.workloads[0].validation->passed);
  EXPECT_NE(r.workloads[0].find_metric("time_ms"), nullptr);
  EXPECT_NE(r.workloads[0].find_metric("peak_memory_mb"), nullptr);
  const metric* fwd = r.workloads[0].find_metric("forward_ms");
  const metric* bwd = r.workloads[0].find_metric("backward_ms");
  ASSERT_NE(fwd, nullptr);
  ASSERT_NE(bwd, nullptr);
  EXPECT_EQ(bwd->samples.size(), 2u);  // one per repetition (--reps 2)
  EXPECT_GT(bwd->samples.at(0), 0.0);
}

}  // namespace
}  // namespace cudabench
