// The decode kernels of kernels/llm_decode/ -- the GEMV (every prologue, epilogue, pack width and
// launch variant, and at Llama-2-7B's row lengths) and the fused decode attention -- against CPU
// double-precision references, fp16. Each test prints its largest difference. Built twice: with
// the GPU tests (label gpu) and, in cudabench_emulated_llm_tests, on the CPU with the kernels run
// by the kernel emulator (tests/emulated/, label unit), so CI checks what they compute. The small
// kernels are in test_llm_small_kernels.cpp (also emulated), the prefill attention in
// test_llm_prefill_attention.cpp (tensor cores: GPU only).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include "cudabench/device_memory.hpp"
#include "cudabench/gpu/cuda_check.hpp"
#include "gpu_test_fixture.hpp"
#include "half_values.hpp"
#include "kernels/common/random_fill.cuh"
#include "kernels/llm_decode/attention_decode.cuh"
#include "kernels/llm_decode/gemv.cuh"
#include "kernels/llm_decode/rope_kv.cuh"
#include "llm_test_helpers.hpp"

using namespace cudabench;
namespace k = cudabench::kernels::llm_decode;
using namespace cudabench::llm_test;

namespace {

#define REQUIRE_GPU() CUDABENCH_REQUIRE_GPU("GPU test skipped")

struct gemv_case {
  int n, k;
  k::gemv_input in;
  k::gemv_output out;
};

void run_gemv_case(const gemv_case& c) {
  const int rows = c.out == k::gemv_output::swiglu ? 2 * c.n : c.n;
  const float a = 1.0f / std::sqrt(static_cast<float>(c.k));
  const auto w = random_values(static_cast<std::size_t>(rows) * c.k, 11 + c.k, -a, a);
  const auto x = random_values(c.k, 12 + c.k, -2.0f, 2.0f);
  const auto nw = random_values(c.k, 13, 0.5f, 1.5f);
  const auto y0 = random_values(c.n, 14, -1.0f, 1.0f);
  auto dw = upload_half(w), dx = upload_half(x), dnw = upload_half(nw), dy = upload_half(y0);
  device_buffer<float> dyf(c.n);

  // Reference input: the GEMV's x, with the RMSNorm prologue's rounding points.
  std::vector<double> xin(x.begin(), x.end());
  if (c.in == k::gemv_input::rmsnorm) {
    double ss = 0;
    for (float v : x) ss += static_cast<double>(v) * v;
    const double rstd = 1.0 / std::sqrt(ss / c.k + 1e-5);
    for (int i = 0; i < c.k; ++i) xin[i] = rh(nw[i] * rh(x[i] * rstd));
  }
  std::vector<double> dot(rows);
  for (int r = 0; r < rows; ++r) {
    double acc = 0;
    for (int i = 0; i < c.k; ++i) acc += static_cast<double>(w[static_cast<std::size_t>(r) * c.k + i]) * xin[i];
    dot[r] = acc;
  }
  std::vector<double> want(c.n);
  for (int r = 0; r < c.n; ++r) {
    switch (c.out) {
      case k::gemv_output::store:
      case k::gemv_output::store_f32: want[r] = dot[r]; break;
      case k::gemv_output::add_residual: want[r] = y0[r] + rh(dot[r]); break;
      case k::gemv_output::swiglu: want[r] = rh(silu(rh(dot[r]))) * rh(dot[c.n + r]); break;
    }
  }

  // Every launch variant (the decode engine's autotuner may pick any of them per call site), each
  // from a fresh y (add_residual updates it in place).
  std::vector<float> first;
  for (int variant = 0; variant < k::kGemvVariants; ++variant) {
    dy = upload_half(y0);
    k::gemv_args<__half> args;
    args.w = dw.get();
    args.n = c.n;
    args.k = c.k;
    args.x = dx.get();
    args.norm_weight = dnw.get();
    args.eps = 1e-5f;
    args.y = c.out == k::gemv_output::store_f32 ? static_cast<void*>(dyf.get()) : static_cast<void*>(dy.get());
    args.variant = variant;
    k::gemv<__half>(args, c.in, c.out, nullptr);
    const std::vector<float> got =
        c.out == k::gemv_output::store_f32 ? download(dyf.get(), c.n) : download_half(dy.get(), c.n);
    const double err = rel_error(got, want);
    std::printf("gemv n=%d k=%d in=%d out=%d variant %s: max rel error %.3g\n", c.n, c.k, static_cast<int>(c.in),
                static_cast<int>(c.out), k::gemv_variant_name(variant), err);
    // fp16 output rounding (2^-11 relative) dominates; fp32 accumulation adds ~1e-6.
    EXPECT_LT(err, 2e-3) << "n=" << c.n << " k=" << c.k << " variant=" << variant;
    // Each lane sums its packs in the same order in every variant, so without the RMSNorm prologue
    // (whose block reduction spans a variant-dependent thread count) the results should be
    // bitwise equal; reported, not required (the compiler may contract differently when unrolled).
    if (variant == 0) first = got;
    else if (c.in == k::gemv_input::vector && got != first)
      std::printf("  (variant %s differs from %s in the last bits)\n", k::gemv_variant_name(variant),
                  k::gemv_variant_name(0));
  }
}

}  // namespace

TEST(LlmKernels, GemvEveryPrologueEpilogueAndPackWidth) {
  REQUIRE_GPU();
  // k = 256 (16-byte packs), 700 (8-byte), 262 (4-byte), 257 (2-byte); n not a multiple of 8.
  for (int kdim : {256, 700, 262, 257})
    for (auto in : {k::gemv_input::vector, k::gemv_input::rmsnorm})
      for (auto out :
           {k::gemv_output::store, k::gemv_output::store_f32, k::gemv_output::add_residual, k::gemv_output::swiglu})
        run_gemv_case({37, kdim, in, out});
}

TEST(LlmKernels, GemvAtLlama7bRowLengths) {
  REQUIRE_GPU();
  run_gemv_case({100, 4096, k::gemv_input::rmsnorm, k::gemv_output::store});         // q/k/v, lm_head
  run_gemv_case({100, 4096, k::gemv_input::rmsnorm, k::gemv_output::swiglu});        // gate/up
  run_gemv_case({100, 11008, k::gemv_input::vector, k::gemv_output::add_residual});  // down_proj
  run_gemv_case({4096, 4096, k::gemv_input::vector, k::gemv_output::add_residual});  // o_proj, full size
}

TEST(LlmKernels, AttentionDecodeMatchesNaiveSoftmax) {
  REQUIRE_GPU();
  // The fused kernel (rotary embedding + cache append + split attention + merge) against the
  // separate steps: rope_kv_append on a copy gives the rotated query and the appended cache row,
  // then softmax attention in double. Split sizes the engine's tuner may pick (16 to 128), head
  // dims with 16-byte packs (32, 64, 128, 256: both register sizings) and with 4-byte packs (100),
  // every head batch (groups of 1, 2, 4, 8 and 16 query heads per KV head: two passes over V),
  // lengths inside, at and across split boundaries; each case runs twice, so the completion
  // counters must have been reset by the first launch.
  struct heads {
    int nh, nkv, hd;
  };
  for (int chunk : {16, 32, 128})
    for (const heads shape : {heads{8, 2, 32}, heads{8, 2, 100}, heads{4, 4, 128}, heads{4, 2, 128}, heads{8, 1, 128},
                              heads{16, 1, 64}, heads{4, 2, 256}}) {
      const int nh = shape.nh, nkv = shape.nkv, hd = shape.hd, max_len = 300, stride = (nh + 2 * nkv) * hd;
      const auto qkv = random_values(stride, 41, -2, 2);
      const auto kc = random_values(static_cast<std::size_t>(nkv) * max_len * hd, 42, -2, 2);
      const auto vc = random_values(static_cast<std::size_t>(nkv) * max_len * hd, 43, -1, 1);
      const std::vector<__half> table = k::make_rope_table<__half>(max_len, hd, 10000.0);
      device_buffer<__half> dtable(table.size());
      CUDABENCH_CHECK_CUDA(cudaMemcpy(dtable.get(), table.data(), dtable.bytes(), cudaMemcpyHostToDevice));
      k::attn_decode_shape s;
      s.num_heads = nh;
      s.num_kv_heads = nkv;
      s.head_dim = hd;
      s.max_len = max_len;
      s.chunk = chunk;
      s.scale = 1.0f / std::sqrt(static_cast<float>(hd));
      device_buffer<float> po(k::attn_decode_partial_floats(s)), pml(k::attn_decode_ml_floats(s));
      device_buffer<unsigned> counters(k::attn_decode_counters(s));
      CUDABENCH_CHECK_CUDA(cudaMemset(counters.get(), 0, counters.bytes()));
      device_buffer<__half> out(nh * hd);
      for (int pos : {0, 15, 16, 31, 32, 200, max_len - 1}) {
        auto dpos = upload(std::vector<int>{pos});
        // Reference path: rotate and append with rope_kv_append.
        auto ref_qkv = upload_half(qkv), ref_k = upload_half(kc), ref_v = upload_half(vc);
        k::rope_kv_shape r;
        r.rows = 1;
        r.qkv_stride = stride;
        r.num_heads = nh;
        r.num_kv_heads = nkv;
        r.head_dim = hd;
        r.max_len = max_len;
        k::rope_kv_append<__half>(ref_qkv.get(), r, dtable.get(), dpos.get(), ref_k.get(), ref_v.get(), nullptr);
        const auto q_rot = download_half(ref_qkv.get(), nh * hd);
        const auto k_want = download<__half>(ref_k.get(), kc.size()), v_want = download<__half>(ref_v.get(), vc.size());
        const auto k_ref = download_half(ref_k.get(), kc.size()), v_ref = download_half(ref_v.get(), vc.size());
        std::vector<double> want;
        for (int h = 0; h < nh; ++h) {
          const auto o = naive_attention(q_rot.data() + h * hd, k_ref, v_ref, h / (nh / nkv), max_len, hd, pos + 1);
          want.insert(want.end(), o.begin(), o.end());
        }
        // Fused path on the raw row and the unappended cache, twice.
        auto dqkv = upload_half(qkv), dk = upload_half(kc), dv = upload_half(vc);
        for (int run = 0; run < 2; ++run) {
          CUDABENCH_CHECK_CUDA(cudaMemset(out.get(), 0xff, out.bytes()));  // NaN: every output must be written
          k::attention_decode<__half>(dqkv.get(), dtable.get(), dk.get(), dv.get(), dpos.get(), s, po.get(), pml.get(),
                                      counters.get(), out.get(), nullptr);
          const double err = rel_error(download_half(out.get(), nh * hd), want);
          if (run == 0)
            std::printf("attention_decode chunk=%d %d/%d heads hd=%d len=%d: max rel error %.3g\n", chunk, nh, nkv, hd,
                        pos + 1, err);
          EXPECT_LT(err, 3e-3) << "chunk " << chunk << " heads " << nh << "/" << nkv << " hd " << hd << " pos " << pos
                               << " run " << run;
        }
        // The append wrote exactly what rope_kv_append writes (bitwise), nothing else moved, and
        // the counters are back at zero.
        const auto k_got = download<__half>(dk.get(), kc.size()), v_got = download<__half>(dv.get(), vc.size());
        EXPECT_EQ(0, std::memcmp(k_got.data(), k_want.data(), k_got.size() * 2)) << "K cache, pos " << pos;
        EXPECT_EQ(0, std::memcmp(v_got.data(), v_want.data(), v_got.size() * 2)) << "V cache, pos " << pos;
        for (unsigned c : download<unsigned>(counters.get(), nkv)) EXPECT_EQ(c, 0u);
      }
    }
}
