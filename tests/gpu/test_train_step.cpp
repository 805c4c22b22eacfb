// train_step: first-step gradients against the CPU double reference (fp16 and bf16), the loss
// falling over 50 steps, a corrupted compute weight failing validation, the loss scaler skipping
// a step on an injected inf (and growing after its interval), the workload through the registry,
// and through the harness: skipped_steps is 0 on a normal config, and a forced overflow of the
// timed steps fails validation naming the count.
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <vector>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "cudabench/device_memory.hpp"
#include "cudabench/gpu/blaslt.hpp"
#include "cudabench/gpu/cuda_check.hpp"
#include "cudabench/gpu/registry.hpp"
#include "cudabench/gpu/runner.hpp"
#include "gpu_test_fixture.hpp"
#include "workloads/train_step/mlp_trainer.hpp"
#include "workloads/train_step/validate.hpp"

namespace cudabench {
namespace {

#define REQUIRE_GPU() CUDABENCH_REQUIRE_GPU("train_step GPU tests skipped")

std::vector<float> download(const float* p, std::size_t n) {
  std::vector<float> v(n);
  CUDABENCH_CHECK_CUDA(cudaMemcpy(v.data(), p, n * sizeof(float), cudaMemcpyDeviceToHost));
  return v;
}

TEST(TrainStep, FirstStepGradientsMatchCpuReference) {
  REQUIRE_GPU();
  for (dtype k : {dtype::fp16, dtype::bf16}) {
    blaslt_context lt;
    train::mlp_trainer t(lt, train::validation_config(k));
    t.init(5, nullptr);
    const validation_outcome v = train::check_first_step_gradients(t, nullptr, train::gradient_tolerance(k));
    std::printf("%s\n", v.message.c_str());
    EXPECT_TRUE(v.passed) << v.message;
  }
}

TEST(TrainStep, LossFallsOverFiftySteps) {
  REQUIRE_GPU();
  for (dtype k : {dtype::fp16, dtype::bf16}) {
    blaslt_context lt;
    train::mlp_trainer t(lt, train::validation_config(k));
    t.init(6, nullptr);
    const std::vector<float> losses = train::loss_curve(t, 50, nullptr);
    const validation_outcome v = train::check_loss_falls(losses, 0.6);
    std::printf("%s\n", v.message.c_str());
    EXPECT_TRUE(v.passed) << v.message;
    EXPECT_EQ(t.read_scaler().step, 50);
  }
}

TEST(TrainStep, CorruptedComputeWeightFailsValidation) {
  REQUIRE_GPU();
  blaslt_context lt;
  train::mlp_trainer t(lt, train::validation_config(dtype::fp16));
  t.init(7, nullptr);
  // The 16-bit copy the GEMMs use no longer matches the fp32 master the reference uses.
  const std::uint16_t bad = 0x4500;  // 5.0 in fp16
  auto* w16 = static_cast<std::uint16_t*>(t.weights16());
  for (int i = 0; i < 256; ++i)  // a column of layer 1's weights
    CUDABENCH_CHECK_CUDA(cudaMemcpy(w16 + t.cfg().params_per_layer() + i * 256 + 3, &bad, 2, cudaMemcpyHostToDevice));
  const validation_outcome v = train::check_first_step_gradients(t, nullptr, train::gradient_tolerance(dtype::fp16));
  std::printf("corrupted: %s\n", v.message.c_str());
  EXPECT_FALSE(v.passed);
}

TEST(TrainStep, OverflowSkipsTheStepAndHalvesTheScale) {
  REQUIRE_GPU();
  blaslt_context lt;
  train::mlp_trainer t(lt, train::validation_config(dtype::fp16));
  t.init(8, nullptr);
  const std::size_t n = t.cfg().params();
  const std::vector<float> w0 = download(t.master(), n);
  t.forward_backward(nullptr);
  const float inf = std::numeric_limits<float>::infinity();
  CUDABENCH_CHECK_CUDA(cudaMemcpy(t.grads() + n / 2, &inf, sizeof(float), cudaMemcpyHostToDevice));
  t.optimizer_step(nullptr);
  CUDABENCH_CHECK_CUDA(cudaDeviceSynchronize());
  kernels::train_step::scaler_state st = t.read_scaler();
  EXPECT_EQ(st.scale, 32768.f);
  EXPECT_EQ(st.step, 0);
  EXPECT_EQ(st.growth_tracker, 0);
  EXPECT_EQ(st.found_inf, 0);
  EXPECT_EQ(st.skipped, 1);
  EXPECT_EQ(download(t.master(), n), w0) << "a skipped step must not touch the weights";

  t.step(nullptr);  // a clean step at the lowered scale
  CUDABENCH_CHECK_CUDA(cudaDeviceSynchronize());
  st = t.read_scaler();
  EXPECT_EQ(st.scale, 32768.f);
  EXPECT_EQ(st.step, 1);
  EXPECT_EQ(st.growth_tracker, 1);
  EXPECT_EQ(st.skipped, 1);
  EXPECT_NE(download(t.master(), n), w0);
}

TEST(TrainStep, ScaleGrowsAfterTheGrowthInterval) {
  REQUIRE_GPU();
  blaslt_context lt;
  train::mlp_config c = train::validation_config(dtype::bf16);
  c.scaler.interval = 3;
  train::mlp_trainer t(lt, c);
  t.init(9, nullptr);
  for (int i = 0; i < 3; ++i) t.step(nullptr);
  CUDABENCH_CHECK_CUDA(cudaDeviceSynchronize());
  const kernels::train_step::scaler_state st = t.read_scaler();
  EXPECT_EQ(st.scale, 131072.f);
  EXPECT_EQ(st.growth_tracker, 0);
  EXPECT_EQ(st.step, 3);
}

TEST(TrainStep, WorkloadVerifiesAndRuns) {
  REQUIRE_GPU();
  const kind_entry* k = find_kind("train_step");
  ASSERT_NE(k, nullptr);
  for (const char* dtype : {"fp16", "bf16"}) {
    workload_spec s;
    s.kind = "train_step";
    s.id = std::string("train_step/dtype=") + dtype + "/layers=4/hidden=512/batch=256";
    s.params["dtype"] = dtype;
    s.params["layers"] = 4;
    s.params["hidden"] = 512;
    s.params["batch"] = 256;
    const std::uint64_t before = memory_tracker::current();
    {
      auto w = k->make(s);
      run_context ctx;
      w->setup(ctx);
      const validation_outcome v = w->verify(ctx);
      std::printf("%s: %s\n", dtype, v.message.c_str());
      EXPECT_TRUE(v.passed) << v.message;
      for (int i = 0; i < 3; ++i) w->run(ctx.stream);
      CUDABENCH_CHECK_CUDA(cudaDeviceSynchronize());
      measurement meas;
      meas.per_run_ms = {4.0};
      const metric_list ms = w->metrics(meas);
      ASSERT_EQ(ms.size(), 4u);
      EXPECT_EQ(ms[0].first, "step_ms");
      EXPECT_EQ(ms[1].first, "samples_per_s");
      EXPECT_DOUBLE_EQ(ms[1].second.median, 256 / 4e-3);
      EXPECT_EQ(ms[2].first, "tflops");
      EXPECT_DOUBLE_EQ(ms[2].second.median, 6.0 * 256 * 4 * 512 * 512 / 4e-3 / 1e12);
      EXPECT_EQ(ms[3].first, "skipped_steps");
      EXPECT_EQ(ms[3].second.unit, "steps");
      EXPECT_EQ(ms[3].second.samples, std::vector<double>{0.0});
      w->teardown();
    }
    EXPECT_EQ(memory_tracker::current(), before);
  }
}

workload_result run_train_step_timed() {
  workload_spec s;
  s.kind = "train_step";
  s.id = "train_step/dtype=fp16/layers=2/hidden=256/batch=128";
  s.params["dtype"] = "fp16";
  s.params["layers"] = 2;
  s.params["hidden"] = 256;
  s.params["batch"] = 128;
  const kind_entry* k = find_kind("train_step");
  EXPECT_NE(k, nullptr);
  runner_options opts;
  opts.settings.repetitions = 3;
  opts.settings.warmup = 1;
  opts.settings.min_time_ms = 2.0;
  opts.settings.warmup_ms = 2.0;
  const std::atomic<bool> stop{false};
  return run_workload(s, &k->make, opts, stop);
}

// The harness path: before_timing() then the one read in metrics(). A normal config skips nothing;
// a loss scale of 1e38 set right before the timed repetitions overflows every fp16 step there.
TEST(TrainStep, TimedStepsSkippedByTheScalerAreCountedAndFailValidation) {
  REQUIRE_GPU();
  const workload_result ok = run_train_step_timed();
  ASSERT_EQ(ok.state, status::ok) << ok.message;
  const metric* skipped = ok.find_metric("skipped_steps");
  ASSERT_NE(skipped, nullptr);
  EXPECT_EQ(skipped->samples, std::vector<double>{0.0});

  ::setenv("CUDABENCH_TRAIN_STEP_FORCE_SCALE", "1e38", 1);
  const workload_result forced = run_train_step_timed();
  ::unsetenv("CUDABENCH_TRAIN_STEP_FORCE_SCALE");
  std::printf("forced: %s\n", forced.message.c_str());
  EXPECT_EQ(forced.state, status::failed_validation);
  EXPECT_NE(forced.message.find("the loss scaler skipped "), std::string::npos) << forced.message;
  ASSERT_TRUE(forced.validation.has_value());
  EXPECT_FALSE(forced.validation->passed);
  EXPECT_TRUE(forced.metrics.empty());
}

}  // namespace
}  // namespace cudabench
