// The prefill attention of kernels/llm_decode/ -- the tensor-core kernel behind the dispatch and the
// CUDA-core one -- against softmax attention in double: causal, grouped-query, fp16 and bf16, up to a
// 2048-token prompt. GPU only (mma.sync does not run in the kernel emulator).
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
#include "kernels/llm_decode/attention_prefill.cuh"
#include "kernels/llm_decode/attention_prefill_mma.cuh"
#include "llm_test_helpers.hpp"

using namespace cudabench;
namespace k = cudabench::kernels::llm_decode;
using namespace cudabench::llm_test;

#define REQUIRE_GPU() CUDABENCH_REQUIRE_GPU("GPU test skipped")

namespace {
k::attn_prefill_shape prefill_shape(int nh, int nkv, int hd, int rows, int stride, int max_len) {
  k::attn_prefill_shape s;
  s.rows = rows;
  s.qkv_stride = stride;
  s.num_heads = nh;
  s.num_kv_heads = nkv;
  s.head_dim = hd;
  s.max_len = max_len;
  s.scale = 1.0f / std::sqrt(static_cast<float>(hd));
  return s;
}
}  // namespace

TEST(LlmKernels, AttentionPrefillIsCausal) {
  REQUIRE_GPU();
  const int nh = 4, nkv = 2, hd = 64, rows = 50, max_len = 64;
  const int stride = (nh + 2 * nkv) * hd;
  const auto qkv = random_values(rows * stride, 51, -2, 2);
  const auto kc = random_values(static_cast<std::size_t>(nkv) * max_len * hd, 52, -2, 2);
  const auto vc = random_values(static_cast<std::size_t>(nkv) * max_len * hd, 53, -1, 1);
  auto dqkv = upload_half(qkv), dk = upload_half(kc), dv = upload_half(vc);
  device_buffer<__half> out(rows * nh * hd);
  const k::attn_prefill_shape s = prefill_shape(nh, nkv, hd, rows, stride, max_len);
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
  const k::attn_prefill_shape s = prefill_shape(nh, nkv, hd, rows, stride, max_len);
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
