// The small kernels of kernels/llm_decode/ -- residual + RMSNorm, RoPE + KV-cache append, SwiGLU,
// argmax -- against CPU double-precision references, fp16. Each test prints its largest
// difference. Built twice: with the GPU tests (label gpu) and, as cudabench_emulated_llm_tests,
// on the CPU with the kernels run by the kernel emulator (tests/emulated/, label unit), so CI checks
// what these kernels compute.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include "cudabench/device_memory.hpp"
#include "cudabench/gpu/cuda_check.hpp"
#include "gpu_test_fixture.hpp"
#include "kernels/common/random_fill.cuh"
#include "kernels/llm_decode/argmax.cuh"
#include "kernels/llm_decode/rmsnorm.cuh"
#include "kernels/llm_decode/rope_kv.cuh"
#include "kernels/llm_decode/swiglu.cuh"
#include "llm_test_helpers.hpp"

using namespace cudabench;
using namespace cudabench::llm_test;
namespace k = cudabench::kernels::llm_decode;

#define REQUIRE_GPU() CUDABENCH_REQUIRE_GPU("GPU test skipped")

TEST(LlmKernels, ResidualRmsnorm) {
  REQUIRE_GPU();
  const int rows = 3, hidden = 300;
  const auto h = random_values(rows * hidden, 21, -2, 2), d = random_values(rows * hidden, 22, -1, 1);
  const auto w = random_values(hidden, 23, 0.5f, 1.5f);
  auto dh = upload_half(h), dd = upload_half(d), dw = upload_half(w);
  device_buffer<__half> out(rows * hidden);
  k::residual_rmsnorm<__half>(dh.get(), dd.get(), dw.get(), 1e-5f, rows, hidden, out.get(), nullptr);
  std::vector<double> want_h(rows * hidden), want_out(rows * hidden);
  for (int r = 0; r < rows; ++r) {
    double ss = 0;
    for (int i = 0; i < hidden; ++i) {
      want_h[r * hidden + i] = rh(h[r * hidden + i] + d[r * hidden + i]);
      ss += want_h[r * hidden + i] * want_h[r * hidden + i];
    }
    const double rstd = 1 / std::sqrt(ss / hidden + 1e-5);
    for (int i = 0; i < hidden; ++i) want_out[r * hidden + i] = w[i] * rh(want_h[r * hidden + i] * rstd);
  }
  const double eh = rel_error(download_half(dh.get(), rows * hidden), want_h);
  const double eo = rel_error(download_half(out.get(), rows * hidden), want_out);
  std::printf("residual_rmsnorm: h max rel error %.3g, out %.3g\n", eh, eo);
  EXPECT_LT(eh, 1e-6);
  EXPECT_LT(eo, 2e-3);
}

TEST(LlmKernels, RopeAndKvAppend) {
  REQUIRE_GPU();
  // Shapes of the packed kernel (head_dim a multiple of 16: a small one, a grouped-query one and
  // Llama-2-7B's heads) and of the scalar one (head_dim 12 and 24: one block per token, and several
  // blocks sharing a token's rotations). Both follow rope_math.cuh's rounding rule, checked bit for
  // bit below.
  struct heads {
    int nh, nkv, hd;
  };
  for (const heads shape :
       {heads{4, 2, 16}, heads{32, 8, 128}, heads{32, 32, 128}, heads{4, 2, 12}, heads{40, 8, 24}}) {
    const int nh = shape.nh, nkv = shape.nkv, hd = shape.hd, rows = 3, max_len = 10;
    const int stride = (nh + 2 * nkv) * hd;
    const auto qkv = random_values(rows * stride, 31, -2, 2);
    for (int decode = 0; decode < 2; ++decode) {
      auto dqkv = upload_half(qkv);
      device_buffer<__half> kc(nkv * max_len * hd), vc(nkv * max_len * hd);
      CUDABENCH_CHECK_CUDA(cudaMemset(kc.get(), 0, kc.bytes()));
      CUDABENCH_CHECK_CUDA(cudaMemset(vc.get(), 0, vc.bytes()));
      auto dpos = upload(std::vector<int>{7});
      k::rope_kv_shape s;
      s.rows = decode ? 1 : rows;
      s.qkv_stride = stride;
      s.num_heads = nh;
      s.num_kv_heads = nkv;
      s.head_dim = hd;
      s.max_len = max_len;
      const std::vector<__half> table = k::make_rope_table<__half>(max_len, hd, 10000.0);
      device_buffer<__half> dtable(table.size());
      CUDABENCH_CHECK_CUDA(cudaMemcpy(dtable.get(), table.data(), dtable.bytes(), cudaMemcpyHostToDevice));
      k::rope_kv_append<__half>(dqkv.get(), s, dtable.get(), decode ? dpos.get() : nullptr, kc.get(), vc.get(),
                                nullptr);
      const auto got_qkv = download_half(dqkv.get(), rows * stride);
      const auto got_k = download_half(kc.get(), nkv * max_len * hd);
      const auto got_v = download_half(vc.get(), nkv * max_len * hd);
      double worst = 0;
      int rule_mismatches = 0;
      for (int r = 0; r < s.rows; ++r) {
        const int p = decode ? 7 : r;
        for (int head = 0; head < nh + nkv; ++head)
          for (int i = 0; i < hd / 2; ++i) {
            const double ang = p * std::pow(10000.0, -2.0 * i / hd);
            const double x1 = qkv[r * stride + head * hd + i], x2 = qkv[r * stride + head * hd + i + hd / 2];
            const double o1 = x1 * std::cos(ang) - x2 * std::sin(ang), o2 = x2 * std::cos(ang) + x1 * std::sin(ang);
            double g1, g2;
            if (head < nh) {
              g1 = got_qkv[r * stride + head * hd + i];
              g2 = got_qkv[r * stride + head * hd + i + hd / 2];
            } else {
              const int base = ((head - nh) * max_len + p) * hd;
              g1 = got_k[base + i];
              g2 = got_k[base + i + hd / 2];
            }
            worst = std::max({worst, std::abs(g1 - o1), std::abs(g2 - o2)});
            // The rule: each product rounded to fp16, then their sum (rope_math.cuh), with the
            // table's fp16 cos and sin.
            const float c = __half2float(table[2 * (p * (hd / 2) + i)]);
            const float sn = __half2float(table[2 * (p * (hd / 2) + i) + 1]);
            const float f1 = static_cast<float>(x1), f2 = static_cast<float>(x2);
            const float r1 = static_cast<float>(rh(static_cast<float>(rh(f1 * c)) + static_cast<float>(rh(-f2 * sn))));
            const float r2 = static_cast<float>(rh(static_cast<float>(rh(f2 * c)) + static_cast<float>(rh(f1 * sn))));
            rule_mismatches += (static_cast<float>(g1) != r1) + (static_cast<float>(g2) != r2);
          }
        for (int j = 0; j < nkv * hd; ++j) {
          const int head = j / hd, d = j % hd;
          EXPECT_EQ(got_v[(head * max_len + p) * hd + d], qkv[r * stride + (nh + nkv) * hd + j]);
        }
      }
      std::printf("rope %d/%d heads of %d (%s): max abs error %.3g (values in [-2.8, 2.8])\n", nh, nkv, hd,
                  decode ? "decode" : "prefill", worst);
      EXPECT_LT(worst, 8e-3);  // a few fp16 roundings of values up to ~2.8
      EXPECT_EQ(rule_mismatches, 0) << nh << "/" << nkv << " heads of " << hd;
      // Nothing written at other positions of the cache.
      for (int p = 0; p < max_len; ++p) {
        const bool written = decode ? p == 7 : p < rows;
        if (!written) EXPECT_EQ(got_k[p * hd], 0.0f) << "position " << p;
      }
    }
  }
}

TEST(LlmKernels, SwigluPrefill) {
  REQUIRE_GPU();
  const int rows = 3, n = 70;
  const auto gu = random_values(rows * 2 * n, 61, -4, 4);
  auto dgu = upload_half(gu);
  device_buffer<__half> act(rows * n);
  k::swiglu<__half>(dgu.get(), rows, n, act.get(), nullptr);
  std::vector<double> want(rows * n);
  for (int t = 0; t < rows; ++t)
    for (int i = 0; i < n; ++i) want[t * n + i] = rh(silu(gu[t * 2 * n + i])) * gu[t * 2 * n + n + i];
  const double err = rel_error(download_half(act.get(), rows * n), want);
  std::printf("swiglu: max rel error %.3g\n", err);
  EXPECT_LT(err, 2e-3);
}

TEST(LlmKernels, ArgmaxTakesTheFirstMaximumAndAdvances) {
  REQUIRE_GPU();
  const int vocab = 3000;
  std::vector<float> logits(vocab);
  for (int i = 0; i < vocab; ++i) logits[i] = kernels::uniform_at(71, i, -5, 5);
  logits[2100] = 9.0f;
  logits[1700] = 9.0f;  // tie: the lower index wins, as torch.argmax
  auto dl = upload(logits);
  auto tokens = upload(std::vector<std::int32_t>(16, -1));
  auto pos = upload(std::vector<int>{5});
  k::argmax_next_token(dl.get(), vocab, tokens.get(), 16, pos.get(), -1, nullptr);  // decode: tokens[6]
  auto t = download(tokens.get(), 16);
  EXPECT_EQ(t[6], 1700);
  EXPECT_EQ(download(pos.get(), 1)[0], 6);
  k::argmax_next_token(dl.get(), vocab, tokens.get(), 16, pos.get(), 9, nullptr);  // prefill: tokens[10]
  t = download(tokens.get(), 16);
  EXPECT_EQ(t[10], 1700);
  EXPECT_EQ(download(pos.get(), 1)[0], 10);
  k::argmax_next_token(dl.get(), vocab, tokens.get(), 16, pos.get(), 15, nullptr);  // past the end: no write
  EXPECT_EQ(download(pos.get(), 1)[0], 10);
}
