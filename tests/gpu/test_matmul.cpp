// GPU tests for the matmul workload: every dtype at small non-square sizes (plain and batched)
// passes validation against the double-precision reference, and a corrupted output fails it.
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "cudabench/errors.hpp"
#include "cudabench/gpu/registry.hpp"
#include "cudabench/kind_description.hpp"
#include "gpu_test_fixture.hpp"
#include "workloads/matmul/matmul.hpp"
#include "workloads/matmul/matmul_workload.hpp"

namespace cudabench {
namespace {

class matmul_gpu : public gpu_test::gpu_fixture {
 protected:
  static workload_spec spec(const std::string& dtype, int m, int n, int k, int batch = 0) {
    workload_spec s;
    s.kind = "matmul";
    s.params = nlohmann::ordered_json{{"dtype", dtype}, {"m", m}, {"n", n}, {"k", k}};
    s.id = "matmul/dtype=" + dtype + "/m=" + std::to_string(m) + "/n=" + std::to_string(n) + "/k=" + std::to_string(k);
    if (batch > 0) {
      s.params["batch"] = batch;
      s.id += "/batch=" + std::to_string(batch);
    }
    return s;
  }

  bool has_fp8() const { return props_.major * 10 + props_.minor >= 89; }

  // Setup + verify through the registry; expects a pass (or `unsupported` for fp8 below sm_89).
  void expect_passes(const workload_spec& s) {
    const kind_entry* kind = find_kind("matmul");
    ASSERT_NE(kind, nullptr);
    auto w = kind->make(s);
    const bool fp8 = s.get_string("dtype") == "fp8";
    if (fp8 && !has_fp8()) {
      EXPECT_THROW(w->setup(ctx_), unsupported_error) << s.id;
      std::printf("%s: unsupported on sm_%d%d, as expected\n", s.id.c_str(), props_.major, props_.minor);
      return;
    }
    w->setup(ctx_);
    const validation_outcome v = w->verify(ctx_);
    std::printf("%s: max_rel_error %.3g (tolerance %.3g)\n  %s\n", s.id.c_str(), v.max_rel_error, v.tolerance,
                v.message.c_str());
    EXPECT_TRUE(v.passed) << s.id << ": " << v.message;
    EXPECT_LE(v.max_rel_error, v.tolerance);
    EXPECT_GT(v.tolerance, 0);
    w->teardown();
  }
};

const char* const all_dtypes[] = {"fp32", "tf32", "fp16", "bf16", "fp8"};

TEST_F(matmul_gpu, every_dtype_non_square) {
  for (const char* d : all_dtypes) expect_passes(spec(d, 256, 384, 512));
}

TEST_F(matmul_gpu, every_dtype_batched) {
  for (const char* d : all_dtypes) expect_passes(spec(d, 192, 320, 256, 3));
}

TEST_F(matmul_gpu, odd_sizes_checked_exhaustively) {
  // 33 x 17 outputs (< 1024): every entry is compared. Odd k means unaligned rows for 16-bit types.
  for (const char* d : {"fp32", "tf32", "fp16", "bf16"}) expect_passes(spec(d, 33, 17, 65));
  expect_passes(spec("fp16", 5, 7, 3, 2));
}

TEST_F(matmul_gpu, larger_k) {
  for (const char* d : all_dtypes) expect_passes(spec(d, 512, 256, 4096));
}

TEST_F(matmul_gpu, fp8_matches_compute_capability) {
  auto w = find_kind("matmul")->make(spec("fp8", 256, 256, 256));
  if (has_fp8()) {
    w->setup(ctx_);
    const validation_outcome v = w->verify(ctx_);
    EXPECT_TRUE(v.passed) << v.message;
  } else {
    EXPECT_THROW(w->setup(ctx_), unsupported_error);
  }
}

TEST_F(matmul_gpu, zeroed_output_fails) {
  matmul_workload w(spec("fp16", 256, 384, 512));
  w.setup(ctx_);
  ASSERT_TRUE(w.verify(ctx_).passed);
  const std::size_t bytes = static_cast<std::size_t>(w.m()) * w.n() * w.output_element_bytes();
  ASSERT_EQ(cudaMemset(w.output(), 0, bytes), cudaSuccess);
  const validation_outcome v = w.check_output(ctx_);
  std::printf("zeroed output: max_rel_error %.3g (tolerance %.3g)\n", v.max_rel_error, v.tolerance);
  EXPECT_FALSE(v.passed);
  EXPECT_GT(v.max_rel_error, 0.5);  // a zero where the answer is ~sqrt(k)/3 is off by ~100%
}

TEST_F(matmul_gpu, one_corrupted_corner_fails) {
  // The last entry of the last batch is always sampled; make it wrong by far more than rounding.
  matmul_workload w(spec("fp32", 200, 300, 400, 2));
  w.setup(ctx_);
  ASSERT_TRUE(w.verify(ctx_).passed);
  const std::size_t last = static_cast<std::size_t>(w.batch()) * w.m() * w.n() - 1;
  float value = 0;
  auto* out = static_cast<float*>(w.output());
  ASSERT_EQ(cudaMemcpy(&value, out + last, sizeof(value), cudaMemcpyDeviceToHost), cudaSuccess);
  value += 1.0f;  // the entry is ~sqrt(400)/3 ~ 7: a 1.0 shift is > 1% off, far above fp32 tolerance
  ASSERT_EQ(cudaMemcpy(out + last, &value, sizeof(value), cudaMemcpyHostToDevice), cudaSuccess);
  const validation_outcome v = w.check_output(ctx_);
  std::printf("corrupted corner: max_rel_error %.3g (tolerance %.3g)\n  %s\n", v.max_rel_error, v.tolerance,
              v.message.c_str());
  EXPECT_FALSE(v.passed);
  EXPECT_NE(v.message.find("batch 1 row 199 col 299"), std::string::npos) << v.message;
}

TEST_F(matmul_gpu, poisoned_output_is_not_finite_and_fails) {
  matmul_workload w(spec("bf16", 64, 64, 64));
  w.setup(ctx_);
  ASSERT_TRUE(w.verify(ctx_).passed);
  ASSERT_EQ(cudaMemset(w.output(), 0xFF, 64 * 64 * w.output_element_bytes()), cudaSuccess);  // NaN
  const validation_outcome v = w.check_output(ctx_);
  EXPECT_FALSE(v.passed);
  EXPECT_TRUE(std::isfinite(v.max_rel_error));  // reported as the largest double, JSON-safe
}

// Host-only (no GPU touched): the metric names, order and arithmetic.
TEST(matmul_metrics, time_then_tflops) {
  workload_spec s;
  s.id = "matmul/dtype=fp16/m=1000/n=2000/k=500/batch=3";
  s.kind = "matmul";
  s.params = nlohmann::ordered_json{{"dtype", "fp16"}, {"m", 1000}, {"n", 2000}, {"k", 500}, {"batch", 3}};
  matmul_workload w(s);
  measurement m;
  m.per_run_ms = {1.0, 2.0};
  const metric_list ms = w.metrics(m);
  ASSERT_EQ(ms.size(), 2u);
  EXPECT_EQ(ms[0].first, "time_ms");
  EXPECT_EQ(ms[1].first, "tflops");
  EXPECT_EQ(ms[1].second.unit, "TFLOP/s");
  // 2 * 1000 * 2000 * 500 * 3 = 6e9 FLOP: 6 TFLOP/s at 1 ms, 3 at 2 ms.
  ASSERT_EQ(ms[1].second.samples.size(), 2u);
  EXPECT_DOUBLE_EQ(ms[1].second.samples[0], 6.0);
  EXPECT_DOUBLE_EQ(ms[1].second.samples[1], 3.0);
}

TEST(matmul_metrics, tolerances_ordered_by_precision) {
  // FP32 must stay well below what TF32 rounding would produce (~1e-3), even at k = 8192.
  EXPECT_LT(matmul_tolerance(dtype::fp32, 8192), 1e-4);
  EXPECT_LT(matmul_tolerance(dtype::fp32, 512), matmul_tolerance(dtype::tf32, 512));
  EXPECT_LT(matmul_tolerance(dtype::fp16, 512), matmul_tolerance(dtype::bf16, 512));
  EXPECT_LE(matmul_tolerance(dtype::bf16, 512), matmul_tolerance(dtype::fp8_e4m3, 512));
}

TEST(matmul_schema, params_in_id_order) {
  const kind_schema s = find_kind_description("matmul")->schema;
  ASSERT_EQ(s.params.size(), 5u);
  const char* names[] = {"dtype", "m", "n", "k", "batch"};
  for (int i = 0; i < 5; ++i) EXPECT_EQ(s.params[i].name, names[i]);
  EXPECT_TRUE(s.params[0].required);
  EXPECT_FALSE(s.params[4].required);
  EXPECT_TRUE(s.params[4].default_value.is_null());  // absent batch stays out of the id
}

}  // namespace
}  // namespace cudabench
