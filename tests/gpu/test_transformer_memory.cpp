// transformer_memory: the model against the CPU double reference on small shapes (both head_dim
// paths, fp32 and fp16), a corrupted weight failing validation, the workload through the
// registry, memory discipline (setup allocates within the plan, run allocates nothing) and OOM
// from setup under a memory_tracker limit with nothing leaked.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "cudabench/device_memory.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/gpu/blaslt.hpp"
#include "cudabench/gpu/cuda_check.hpp"
#include "cudabench/gpu/registry.hpp"
#include "gpu_test_fixture.hpp"
#include "kernels/common/random_fill.cuh"
#include "kernels/transformer_memory/attention.cuh"
#include "workloads/transformer_memory/model.hpp"
#include "workloads/transformer_memory/validate.hpp"

namespace cudabench {
namespace {

#define REQUIRE_GPU() CUDABENCH_REQUIRE_GPU("transformer_memory GPU tests skipped")

struct limit_guard {
  explicit limit_guard(std::uint64_t bytes) { memory_tracker::set_limit(bytes); }
  ~limit_guard() { memory_tracker::set_limit(0); }
};

validation_outcome validate(const transformer::config& c, std::uint64_t seed) {
  blaslt_context lt;
  transformer::model m(lt, c);
  m.init_random(seed, nullptr);
  const transformer::host_snapshot snap = transformer::snapshot(m);
  return transformer::compare_with_reference(m, snap, nullptr, transformer::validation_tolerance(c.dtype));
}

TEST(TransformerMemory, MatchesCpuReferenceFp32HeadDim64) {
  REQUIRE_GPU();
  const validation_outcome v = validate(transformer::validation_config(dtype::fp32), 1);
  std::printf("%s\n", v.message.c_str());
  EXPECT_TRUE(v.passed) << v.message;
  EXPECT_LE(v.max_rel_error, 1e-4);
}

// Every attention variant the setup-time tuner can pick, through the whole model.
TEST(TransformerMemory, MatchesCpuReferenceFp32HeadDim64EveryAttentionVariant) {
  REQUIRE_GPU();
  for (auto variant : {kernels::transformer_memory::attention_variant::cuda_core,
                       kernels::transformer_memory::attention_variant::tf32x3_two_pass,
                       kernels::transformer_memory::attention_variant::tf32x3_flash}) {
    transformer::config c = transformer::validation_config(dtype::fp32);
    c.attention = variant;
    const validation_outcome v = validate(c, 1);
    std::printf("%s\n", v.message.c_str());
    EXPECT_TRUE(v.passed) << kernels::transformer_memory::attention_variant_name(variant) << ": " << v.message;
    EXPECT_LE(v.max_rel_error, 1e-4) << kernels::transformer_memory::attention_variant_name(variant);
  }
}

// The tuner on a model with several chunks: it picks a variant whose output agrees with the
// reference, and the model still matches the CPU reference afterwards (tuning wrote only scratch).
TEST(TransformerMemory, AttentionTunerPicksAWorkingVariant) {
  REQUIRE_GPU();
  blaslt_context lt;
  transformer::config c = transformer::validation_config(dtype::fp32);
  c.src_len = 130;  // not a multiple of any key tile
  c.tgt_len = 200;
  c.chunk_tokens = 200;
  transformer::model m(lt, c);
  m.init_random(5, nullptr);
  const std::string summary = m.tune_attention(6, nullptr);
  std::printf("%s\n", summary.c_str());
  EXPECT_NE(summary.find("chose"), std::string::npos) << summary;
  EXPECT_EQ(summary.find("rejected"), std::string::npos) << summary;
  const transformer::host_snapshot snap = transformer::snapshot(m);
  const validation_outcome v = transformer::compare_with_reference(m, snap, nullptr, 1e-4);
  std::printf("after tuning (%s): %s\n", kernels::transformer_memory::attention_variant_name(m.cfg().attention),
              v.message.c_str());
  EXPECT_TRUE(v.passed) << v.message;
}

TEST(TransformerMemory, MatchesCpuReferenceFp32HeadDim16) {
  REQUIRE_GPU();
  transformer::config c;
  c.d_model = 64;
  c.nhead = 4;
  c.dim_feedforward = 128;
  c.encoder_layers = 1;
  c.decoder_layers = 2;
  c.batch = 3;
  c.src_len = 70;
  c.tgt_len = 129;  // crosses the 128-query block boundary
  // default chunk_tokens: one chunk of all 3 sequences (validation_config runs one per chunk)
  const validation_outcome v = validate(c, 2);
  std::printf("%s\n", v.message.c_str());
  EXPECT_TRUE(v.passed) << v.message;
}

TEST(TransformerMemory, MatchesCpuReferenceFp16) {
  REQUIRE_GPU();
  const validation_outcome v = validate(transformer::validation_config(dtype::fp16), 3);
  std::printf("%s\n", v.message.c_str());
  EXPECT_TRUE(v.passed) << v.message;
}

TEST(TransformerMemory, CorruptedWeightFailsValidation) {
  REQUIRE_GPU();
  blaslt_context lt;
  const transformer::config c = transformer::validation_config(dtype::fp32);
  transformer::model m(lt, c);
  m.init_random(4, nullptr);
  const transformer::host_snapshot snap = transformer::snapshot(m);
  // One weight of the last decoder layer's linear2 changed after the reference took its copy.
  const float bad = 0.5f;
  void* w = const_cast<void*>(m.params().get("decoder.layers.1.linear2.weight"));
  CUDABENCH_CHECK_CUDA(cudaMemcpy(static_cast<float*>(w) + 7, &bad, sizeof(bad), cudaMemcpyHostToDevice));
  const validation_outcome v = transformer::compare_with_reference(m, snap, nullptr, 1e-4);
  std::printf("corrupted: %s\n", v.message.c_str());
  EXPECT_FALSE(v.passed);
  EXPECT_GT(v.max_rel_error, 1e-3);
}

// Both attention kernels at the workload's length (many key tiles, several query blocks, a
// cross-attention key length that is not a multiple of the tile) against a CPU double reference
// on sampled query rows.
TEST(TransformerMemory, AttentionKernelsMatchReferenceAtFullLength) {
  REQUIRE_GPU();
  const int batch = 2, heads = 8, hd = 64, d = heads * hd, sq = 512, sk = 301;
  device_buffer<float> q(static_cast<std::size_t>(batch) * sq * d), kv(static_cast<std::size_t>(batch) * sk * 2 * d),
      o(static_cast<std::size_t>(batch) * sq * d);
  kernels::fill_uniform(q.get(), q.size(), 11, -2.f, 2.f, nullptr);
  kernels::fill_uniform(kv.get(), kv.size(), 12, -2.f, 2.f, nullptr);
  std::vector<float> hq(q.size()), hkv(kv.size()), ho(o.size());
  CUDABENCH_CHECK_CUDA(cudaMemcpy(hq.data(), q.get(), q.bytes(), cudaMemcpyDeviceToHost));
  CUDABENCH_CHECK_CUDA(cudaMemcpy(hkv.data(), kv.get(), kv.bytes(), cudaMemcpyDeviceToHost));
  for (auto variant : {kernels::transformer_memory::attention_variant::tf32x3_flash,
                       kernels::transformer_memory::attention_variant::tf32x3_two_pass,
                       kernels::transformer_memory::attention_variant::cuda_core}) {
    kernels::transformer_memory::attention_args a;
    a.q = q.get();
    a.k = kv.get();
    a.v = kv.get() + d;
    a.o = o.get();
    a.ldq = a.ldo = d;
    a.ldk = a.ldv = 2 * d;
    a.batch = batch;
    a.heads = heads;
    a.head_dim = hd;
    a.sq = sq;
    a.sk = sk;
    a.variant = variant;
    CUDABENCH_CHECK_CUDA(cudaMemset(o.get(), 0xff, o.bytes()));  // NaN: unwritten outputs show
    kernels::transformer_memory::attention_forward(a, nullptr);
    CUDABENCH_CHECK_CUDA(cudaMemcpy(ho.data(), o.get(), o.bytes(), cudaMemcpyDeviceToHost));
    double worst = 0;
    for (int b = 0; b < batch; ++b)
      for (int h = 0; h < heads; ++h)
        for (int i : {0, 1, 63, 64, 127, 128, 300, 447, 448, 511}) {
          std::vector<double> sc(sk);
          double mx = -1e300, sum = 0;
          for (int j = 0; j < sk; ++j) {
            double dot = 0;
            for (int e = 0; e < hd; ++e)
              dot += static_cast<double>(hq[(static_cast<std::size_t>(b) * sq + i) * d + h * hd + e]) *
                     hkv[(static_cast<std::size_t>(b) * sk + j) * 2 * d + h * hd + e];
            sc[j] = dot / 8.0;
            mx = std::max(mx, sc[j]);
          }
          for (int j = 0; j < sk; ++j) sum += (sc[j] = std::exp(sc[j] - mx));
          for (int e = 0; e < hd; ++e) {
            double ref = 0;
            for (int j = 0; j < sk; ++j)
              ref += sc[j] / sum * hkv[(static_cast<std::size_t>(b) * sk + j) * 2 * d + d + h * hd + e];
            const double got = ho[(static_cast<std::size_t>(b) * sq + i) * d + h * hd + e];
            worst = std::isfinite(got) ? std::max(worst, std::fabs(got - ref) / std::max(std::fabs(ref), 1.0)) : 1e30;
          }
        }
    std::printf("attention %s, batch %d heads %d sq %d sk %d: max |got-ref|/max(|ref|,1) = %.3g\n",
                kernels::transformer_memory::attention_variant_name(variant), batch, heads, sq, sk, worst);
    EXPECT_LE(worst, 2e-5);
  }
}

workload_spec spec(int batch, int seq, const char* dtype) {
  workload_spec s;
  s.kind = "transformer_memory";
  s.id = std::string("transformer_memory/batch=") + std::to_string(batch) + "/seq_len=" + std::to_string(seq) +
         "/dtype=" + dtype;
  s.params["batch"] = batch;
  s.params["seq_len"] = seq;
  s.params["dtype"] = dtype;
  s.params["weights"] = "random";
  return s;
}

TEST(TransformerMemory, WorkloadVerifiesRunsAndStaysWithinItsMemoryPlan) {
  REQUIRE_GPU();
  const kind_entry* k = find_kind("transformer_memory");
  ASSERT_NE(k, nullptr);
  for (const char* dtype : {"fp32", "fp16"}) {
    const std::uint64_t before = memory_tracker::current();
    {
      auto w = k->make(spec(2, 64, dtype));
      run_context ctx;
      memory_tracker::reset_peak();
      w->setup(ctx);
      transformer::config c;
      c.batch = 2;
      c.src_len = c.tgt_len = 64;
      c.dtype = std::string(dtype) == "fp16" ? cudabench::dtype::fp16 : cudabench::dtype::fp32;
      const std::uint64_t setup_bytes = memory_tracker::current() - before;
      std::printf("%s: setup allocated %llu bytes, plan %llu + 8 MiB workspace\n", dtype,
                  static_cast<unsigned long long>(setup_bytes),
                  static_cast<unsigned long long>(transformer::model::planned_bytes(c)));
      EXPECT_EQ(setup_bytes, transformer::model::planned_bytes(c) + (8u << 20));
      const validation_outcome v = w->verify(ctx);
      std::printf("%s: %s\n", dtype, v.message.c_str());
      EXPECT_TRUE(v.passed) << v.message;
      const std::uint64_t after_verify = memory_tracker::current();
      w->run(ctx.stream);
      w->run(ctx.stream);
      CUDABENCH_CHECK_CUDA(cudaDeviceSynchronize());
      EXPECT_EQ(memory_tracker::current(), after_verify) << "run() must not allocate";
      measurement meas;
      meas.per_run_ms = {2.0, 2.0};
      meas.peak_memory_bytes = 3u << 20;
      const metric_list ms = w->metrics(meas);
      ASSERT_EQ(ms.size(), 3u);
      EXPECT_EQ(ms[0].first, "peak_memory_mb");
      EXPECT_DOUBLE_EQ(ms[0].second.median, 3.0);
      EXPECT_EQ(ms[1].first, "time_ms");
      EXPECT_EQ(ms[2].first, "tokens_per_s");
      EXPECT_DOUBLE_EQ(ms[2].second.median, 2.0 * 64 / 2e-3);
      w->teardown();
    }
    EXPECT_EQ(memory_tracker::current(), before);
  }
}

TEST(TransformerMemory, OomFromSetupReleasesEverything) {
  REQUIRE_GPU();
  const kind_entry* k = find_kind("transformer_memory");
  ASSERT_NE(k, nullptr);
  const std::uint64_t before = memory_tracker::current();
  for (std::uint64_t budget : {std::uint64_t{1} << 10, std::uint64_t{64} << 20}) {
    // 1 KiB fails on the first allocation; 64 MiB lets the cuBLASLt workspace (8 MiB) through and fails
    // on the weights (176 MB), so RAII has something to release.
    limit_guard guard(before + budget);
    auto w = k->make(spec(32, 512, "fp32"));
    run_context ctx;
    bool thrown = false;
    try {
      w->setup(ctx);
    } catch (const oom_error& e) {
      thrown = true;
      std::printf("budget %llu: oom_error requested %zu bytes: %s\n", static_cast<unsigned long long>(budget),
                  e.requested_bytes(), e.what());
      EXPECT_GT(e.requested_bytes(), 0u);
    }
    EXPECT_TRUE(thrown);
    EXPECT_EQ(memory_tracker::current(), before) << "setup leaked after oom_error";
    w.reset();
    EXPECT_EQ(memory_tracker::current(), before);
  }
}

}  // namespace
}  // namespace cudabench
