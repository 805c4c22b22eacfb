// The GEMV and attention kernels of kernels/llm_decode/ against CPU double-precision references at
// small sizes (plus the GEMV at Llama-2-7B's row lengths), fp16. Each test prints its largest
// difference. The small kernels (RMSNorm, RoPE + KV append, SwiGLU, argmax) are in
// test_llm_small_kernels.cpp, which also runs on the CPU through the kernel emulator.
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
#include "kernels/llm_decode/attention_prefill.cuh"
#include "kernels/llm_decode/attention_prefill_mma.cuh"
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

namespace {
// Softmax attention of one query over keys 0..len-1 of one KV head, in double.
std::vector<double> naive_attention(const float* q, const std::vector<float>& kc, const std::vector<float>& vc, int kvh,
                                    int max_len, int hd, int len) {
  std::vector<double> s(len), out(hd, 0.0);
  double mx = -1e300, sum = 0;
  for (int t = 0; t < len; ++t) {
    double dot = 0;
    for (int d = 0; d < hd; ++d)
      dot += static_cast<double>(q[d]) * kc[(static_cast<std::size_t>(kvh) * max_len + t) * hd + d];
    s[t] = dot / std::sqrt(static_cast<double>(hd));
    mx = std::max(mx, s[t]);
  }
  for (double& v : s) sum += (v = std::exp(v - mx));
  for (int t = 0; t < len; ++t)
    for (int d = 0; d < hd; ++d) out[d] += s[t] / sum * vc[(static_cast<std::size_t>(kvh) * max_len + t) * hd + d];
  return out;
}
}  // namespace

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

TEST(LlmKernels, AttentionPrefillIsCausal) {
  REQUIRE_GPU();
  const int nh = 4, nkv = 2, hd = 64, rows = 50, max_len = 64;
  const int stride = (nh + 2 * nkv) * hd;
  const auto qkv = random_values(rows * stride, 51, -2, 2);
  const auto kc = random_values(static_cast<std::size_t>(nkv) * max_len * hd, 52, -2, 2);
  const auto vc = random_values(static_cast<std::size_t>(nkv) * max_len * hd, 53, -1, 1);
  auto dqkv = upload_half(qkv), dk = upload_half(kc), dv = upload_half(vc);
  device_buffer<__half> out(rows * nh * hd);
  k::attn_prefill_shape s;
  s.rows = rows;
  s.qkv_stride = stride;
  s.num_heads = nh;
  s.num_kv_heads = nkv;
  s.head_dim = hd;
  s.max_len = max_len;
  s.scale = 1.0f / std::sqrt(static_cast<float>(hd));
  k::attention_prefill<__half>(dqkv.get(), dk.get(), dv.get(), s, out.get(), nullptr);
  const auto got = download_half(out.get(), rows * nh * hd);
  std::vector<double> want;
  for (int t = 0; t < rows; ++t)
    for (int h = 0; h < nh; ++h) {
      const auto o = naive_attention(qkv.data() + t * stride + h * hd, kc, vc, h / (nh / nkv), max_len, hd, t + 1);
      want.insert(want.end(), o.begin(), o.end());
    }
  const double err = rel_error(got, want);
  std::printf("attention_prefill rows=%d: max rel error %.3g\n", rows, err);
  EXPECT_LT(err, 3e-3);
}

namespace {

// Values rounded to T on the host and uploaded; `host` holds exactly what the device holds.
template <class T>
struct device_values {
  device_buffer<T> dev;
  std::vector<float> host;
};

template <class T>
device_values<T> upload_as(const std::vector<float>& v) {
  std::vector<T> t(v.size());
  device_values<T> out{device_buffer<T>(v.size()), std::vector<float>(v.size())};
  for (std::size_t i = 0; i < v.size(); ++i) {
    t[i] = test::from_f<T>(v[i]);
    out.host[i] = test::to_f(t[i]);
  }
  CUDABENCH_CHECK_CUDA(cudaMemcpy(out.dev.get(), t.data(), t.size() * sizeof(T), cudaMemcpyHostToDevice));
  return out;
}

template <class T>
std::vector<float> download_as_float(const T* p, std::size_t n) {
  std::vector<float> v(n);
  const auto raw = download<T>(p, n);
  for (std::size_t i = 0; i < n; ++i) v[i] = test::to_f(raw[i]);
  return v;
}

// One prefill attention case through `path` (the dispatch, or the CUDA-core kernel alone), judged
// against softmax attention in double over a sample of rows (every row up to 130, then a spread
// including the last 64). Returns max |got - want| / max |want| over the sampled rows.
enum class prefill_path { dispatch, cuda_cores };

template <class T>
double prefill_error(int nh, int nkv, int hd, int rows, std::uint64_t seed, prefill_path path, float qk_range) {
  const int max_len = rows + 5, stride = (nh + 2 * nkv) * hd;
  auto qkv = upload_as<T>(random_values(static_cast<std::size_t>(rows) * stride, seed, -qk_range, qk_range));
  auto kc = upload_as<T>(random_values(static_cast<std::size_t>(nkv) * max_len * hd, seed + 1, -qk_range, qk_range));
  auto vc = upload_as<T>(random_values(static_cast<std::size_t>(nkv) * max_len * hd, seed + 2, -1, 1));
  device_buffer<T> out(static_cast<std::size_t>(rows) * nh * hd);
  CUDABENCH_CHECK_CUDA(cudaMemset(out.get(), 0xff, out.bytes()));  // NaN: every output must be written
  k::attn_prefill_shape s;
  s.rows = rows;
  s.qkv_stride = stride;
  s.num_heads = nh;
  s.num_kv_heads = nkv;
  s.head_dim = hd;
  s.max_len = max_len;
  s.scale = 1.0f / std::sqrt(static_cast<float>(hd));
  if (path == prefill_path::dispatch)
    k::attention_prefill<T>(qkv.dev.get(), kc.dev.get(), vc.dev.get(), s, out.get(), nullptr);
  else k::attention_prefill_cuda_cores<T>(qkv.dev.get(), kc.dev.get(), vc.dev.get(), s, out.get(), nullptr);
  const auto got_all = download_as_float(out.get(), out.size());
  std::vector<int> sample;
  for (int t = 0; t < rows; ++t)
    if (t < 130 || t % 97 == 0 || t >= rows - 64) sample.push_back(t);
  std::vector<float> got;
  std::vector<double> want;
  for (int t : sample)
    for (int h = 0; h < nh; ++h) {
      const auto o = naive_attention(qkv.host.data() + static_cast<std::size_t>(t) * stride + h * hd, kc.host, vc.host,
                                     h / (nh / nkv), max_len, hd, t + 1);
      want.insert(want.end(), o.begin(), o.end());
      const std::size_t at = (static_cast<std::size_t>(t) * nh + h) * hd;
      got.insert(got.end(), got_all.begin() + at, got_all.begin() + at + hd);
    }
  return rel_error(got, want);
}

}  // namespace

TEST(LlmKernels, AttentionPrefillTensorCoresMatchDouble) {
  REQUIRE_GPU();
  // Every head dim the tensor-core kernel is built for, grouped and plain heads, lengths below,
  // at and across the 64-row tiles up to a 2048-token prompt; fp16 and bf16; q and k uniform in
  // +-1 (scaled scores with a standard deviation of ~0.33) and +-2 (~1.3, peakier softmax).
  struct shape {
    int nh, nkv, hd, rows;
  };
  for (const shape c : {shape{4, 2, 32, 50}, shape{8, 2, 64, 64}, shape{8, 2, 64, 65}, shape{4, 4, 96, 300},
                        shape{4, 2, 128, 1}, shape{4, 2, 128, 129}, shape{2, 1, 128, 2048}})
    for (float range : {1.0f, 2.0f}) {
      k::attn_prefill_shape s;
      s.head_dim = c.hd;
      s.qkv_stride = (c.nh + 2 * c.nkv) * c.hd;
      ASSERT_TRUE(k::attention_prefill_mma_supports(s)) << "hd " << c.hd;
      const double e16 = prefill_error<__half>(c.nh, c.nkv, c.hd, c.rows, 71, prefill_path::dispatch, range);
      const double e_bf = prefill_error<__nv_bfloat16>(c.nh, c.nkv, c.hd, c.rows, 72, prefill_path::dispatch, range);
      std::printf("attention_prefill (tensor cores) %d/%d heads hd=%d rows=%d range %.0f: fp16 %.3g, bf16 %.3g\n", c.nh,
                  c.nkv, c.hd, c.rows, range, e16, e_bf);
      EXPECT_LT(e16, 3e-3) << "fp16 hd " << c.hd << " rows " << c.rows;
      EXPECT_LT(e_bf, 1.5e-2) << "bf16 hd " << c.hd << " rows " << c.rows;
    }
}

TEST(LlmKernels, AttentionPrefillCudaCoresMatchDouble) {
  REQUIRE_GPU();
  // The fallback for head dims without a tensor-core build (80, 256), and on a tensor-core head dim
  // called directly, so both paths stay checked.
  struct shape {
    int nh, nkv, hd, rows;
  };
  for (const shape c : {shape{4, 2, 80, 70}, shape{2, 1, 256, 40}, shape{4, 2, 128, 200}}) {
    k::attn_prefill_shape s;
    s.head_dim = c.hd;
    s.qkv_stride = (c.nh + 2 * c.nkv) * c.hd;
    const bool mma = k::attention_prefill_mma_supports(s);
    EXPECT_EQ(mma, c.hd == 128);
    const auto path = mma ? prefill_path::cuda_cores : prefill_path::dispatch;
    const double e16 = prefill_error<__half>(c.nh, c.nkv, c.hd, c.rows, 81, path, 2.0f);
    const double e_bf = prefill_error<__nv_bfloat16>(c.nh, c.nkv, c.hd, c.rows, 82, path, 2.0f);
    std::printf("attention_prefill (CUDA cores) %d/%d heads hd=%d rows=%d: fp16 %.3g, bf16 %.3g\n", c.nh, c.nkv, c.hd,
                c.rows, e16, e_bf);
    EXPECT_LT(e16, 3e-3) << "fp16 hd " << c.hd;
    EXPECT_LT(e_bf, 1.5e-2) << "bf16 hd " << c.hd;
  }
}
