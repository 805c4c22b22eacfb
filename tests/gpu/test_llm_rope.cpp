// Rotary embedding at long positions (issue 11): rope_kv_append with make_rope_table's factors
// against double precision at every position 0..32767, head_dim 64 and 128, theta 10^4 and
// 5x10^5, fp16 and bf16, through the prefill path (row r = position r) and the decode path (*pos).
//
// Bounds, with u the storage type's unit roundoff (2^-11 fp16, 2^-8 bf16), none depending on the
// position:
//  - factors: a unit pair (x_i, x_{i+d/2}) = (1, 0) rotates to exactly (T(cos), T(sin)) (1 * c and
//    0 * s are exact), and each must be the double value rounded to nearest: |T(c) - c| <= u |c|,
//    or <= 2^-25 in fp16's subnormal range.
//  - any pair (x1, x2): x1 c and x2 s each carry two roundings (the factor, the product), the sum
//    one more (after an fp32 add, 2^-24): |o - exact| <= (3u + 3u^2 + u^3 + 2^-23)(|x1 c| + |x2 s|),
//    and |x1 c| + |x2 s| <= hypot(x1, x2) (Cauchy-Schwarz, c^2 + s^2 = 1); plus 2^-24 absolute for
//    fp16 products that land in the subnormal range.
// An angle formed in fp32 (p * inv_freq rounded to fp32, the kernel before issue 11) errs by up to
// |angle| 2^-23 rad, which breaks the first bound wherever |c| or |s| is small and, at tens of
// thousands of positions, the second; the test prints what such factors would score.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <gtest/gtest.h>

#include "cudabench/device_memory.hpp"
#include "cudabench/gpu/cuda_check.hpp"
#include "gpu_test_fixture.hpp"
#include "half_values.hpp"
#include "kernels/common/random_fill.cuh"
#include "kernels/llm_decode/rope_kv.cuh"

using namespace cudabench;
namespace k = cudabench::kernels::llm_decode;

namespace {

#define REQUIRE_GPU() CUDABENCH_REQUIRE_GPU("GPU test skipped")

using cudabench::test::from_f;
using cudabench::test::to_f;

template <class T>
struct traits;
template <>
struct traits<__half> {
  static constexpr const char* name = "fp16";
  static constexpr double u = 1.0 / 2048;                               // 2^-11
  static constexpr double subnormal_half_ulp = 2.9802322387695312e-08;  // 2^-25
  static constexpr double min_normal = 6.103515625e-05;                 // 2^-14
};
template <>
struct traits<__nv_bfloat16> {
  static constexpr const char* name = "bf16";
  static constexpr double u = 1.0 / 256;           // 2^-8
  static constexpr double subnormal_half_ulp = 0;  // fp32's range: no subnormal factor or product here
  static constexpr double min_normal = 1.1754943508222875e-38;
};

// Is `got` the round-to-nearest T of `exact`? (within half an ulp, 1e-15 of slack for double's own error)
template <class T>
double factor_bound(double exact) {
  const double a = std::abs(exact);
  return (a >= traits<T>::min_normal ? traits<T>::u * a : traits<T>::subnormal_half_ulp) + 1e-15;
}

template <class T>
double rotation_bound(double x1, double x2) {
  const double u = traits<T>::u;
  return (3 * u + 3 * u * u + u * u * u + std::ldexp(1.0, -23)) * std::hypot(x1, x2) +
         2 * traits<T>::subnormal_half_ulp;
}

// Position bands the report splits the worst errors into.
constexpr int kBands = 4;
constexpr int kBandStart[kBands + 1] = {0, 512, 4096, 16384, 32768};
int band_of(int p) {
  int b = 0;
  while (p >= kBandStart[b + 1]) ++b;
  return b;
}

template <class T>
void check_long_positions(int hd, double theta) {
  constexpr int max_len = 32768;
  const int half = hd / 2, nh = 2, nkv = 1, stride = (nh + 2 * nkv) * hd;
  // Head 0 (q): unit pairs (1, 0), which come out as the factors themselves. Head 1 (q) and the k
  // head: seeded values in [-2, 2), representable in T. v: seeded, copied as is.
  std::vector<T> qkv(static_cast<std::size_t>(max_len) * stride);
  for (int p = 0; p < max_len; ++p)
    for (int j = 0; j < stride; ++j) {
      const std::size_t at = static_cast<std::size_t>(p) * stride + j;
      const float v = j < hd ? (j < half ? 1.0f : 0.0f) : kernels::uniform_at(0x7073 + hd, at, -2.0f, 2.0f);
      qkv[at] = from_f<T>(v);
    }
  const std::vector<T> table = k::make_rope_table<T>(max_len, hd, theta);
  device_buffer<T> dqkv(qkv.size()), dtable(table.size()), kc(static_cast<std::size_t>(max_len) * hd),
      vc(static_cast<std::size_t>(max_len) * hd);
  CUDABENCH_CHECK_CUDA(cudaMemcpy(dqkv.get(), qkv.data(), dqkv.bytes(), cudaMemcpyHostToDevice));
  CUDABENCH_CHECK_CUDA(cudaMemcpy(dtable.get(), table.data(), dtable.bytes(), cudaMemcpyHostToDevice));
  k::rope_kv_shape s;
  s.rows = max_len;
  s.qkv_stride = stride;
  s.num_heads = nh;
  s.num_kv_heads = nkv;
  s.head_dim = hd;
  s.max_len = max_len;
  k::rope_kv_append<T>(dqkv.get(), s, dtable.get(), nullptr, kc.get(), vc.get(), nullptr);
  CUDABENCH_CHECK_CUDA(cudaDeviceSynchronize());
  std::vector<T> got(qkv.size()), gotk(kc.size()), gotv(vc.size());
  CUDABENCH_CHECK_CUDA(cudaMemcpy(got.data(), dqkv.get(), dqkv.bytes(), cudaMemcpyDeviceToHost));
  CUDABENCH_CHECK_CUDA(cudaMemcpy(gotk.data(), kc.get(), kc.bytes(), cudaMemcpyDeviceToHost));
  CUDABENCH_CHECK_CUDA(cudaMemcpy(gotv.data(), vc.get(), vc.bytes(), cudaMemcpyDeviceToHost));

  // Worst error / bound per band, for the factors, the rotations, and factors from an fp32 angle.
  double factor_worst[kBands] = {}, rot_worst[kBands] = {}, fp32_worst[kBands] = {};
  long failures = 0;
  std::vector<double> inv_freq(half);
  std::vector<float> inv_freq32(half);
  for (int i = 0; i < half; ++i) {
    inv_freq[i] = std::pow(theta, -2.0 * i / hd);
    inv_freq32[i] = 1.0f / std::pow(static_cast<float>(theta), static_cast<float>(2 * i) / static_cast<float>(hd));
  }
  for (int p = 0; p < max_len; ++p) {
    const int b = band_of(p);
    const std::size_t row = static_cast<std::size_t>(p) * stride;
    for (int i = 0; i < half; ++i) {
      const double angle = p * inv_freq[i], c = std::cos(angle), sn = std::sin(angle);
      // Factors: head 0's outputs.
      const double gc = to_f(got[row + i]), gs = to_f(got[row + half + i]);
      const double fr = std::max(std::abs(gc - c) / factor_bound<T>(c), std::abs(gs - sn) / factor_bound<T>(sn));
      factor_worst[b] = std::max(factor_worst[b], fr);
      const float a32 = static_cast<float>(p) * inv_freq32[i];
      const double c32 = to_f(from_f<T>(std::cos(a32))), s32 = to_f(from_f<T>(std::sin(a32)));
      fp32_worst[b] =
          std::max({fp32_worst[b], std::abs(c32 - c) / factor_bound<T>(c), std::abs(s32 - sn) / factor_bound<T>(sn)});
      if (fr > 1 && ++failures <= 5)
        ADD_FAILURE() << traits<T>::name << " hd " << hd << " theta " << theta << " position " << p << " pair " << i
                      << ": factors (" << gc << ", " << gs << ") vs (" << c << ", " << sn << ")";
      // Rotations: q head 1 in place, the k head in the cache at position p.
      for (int head = 1; head < nh + nkv; ++head) {
        const std::size_t in = row + static_cast<std::size_t>(head) * hd;
        const double x1 = to_f(qkv[in + i]), x2 = to_f(qkv[in + half + i]);
        const double o1 = x1 * c - x2 * sn, o2 = x2 * c + x1 * sn;
        double g1, g2;
        if (head < nh) {
          g1 = to_f(got[in + i]);
          g2 = to_f(got[in + half + i]);
        } else {
          const std::size_t at = static_cast<std::size_t>(p) * hd;
          g1 = to_f(gotk[at + i]);
          g2 = to_f(gotk[at + half + i]);
        }
        const double rr = std::max(std::abs(g1 - o1), std::abs(g2 - o2)) / rotation_bound<T>(x1, x2);
        rot_worst[b] = std::max(rot_worst[b], rr);
        if (!(rr <= 1) && ++failures <= 5)
          ADD_FAILURE() << traits<T>::name << " hd " << hd << " theta " << theta << " position " << p << " head "
                        << head << " pair " << i << ": (" << g1 << ", " << g2 << ") vs (" << o1 << ", " << o2 << ")";
      }
    }
    for (int d = 0; d < hd; ++d)
      if (to_f(gotv[static_cast<std::size_t>(p) * hd + d]) != to_f(qkv[row + 3 * hd + d]) && ++failures <= 5)
        ADD_FAILURE() << "v not copied at position " << p << " dim " << d;
  }
  EXPECT_EQ(failures, 0);
  std::printf("rope %s head_dim %d theta %g: worst error / bound by positions", traits<T>::name, hd, theta);
  for (int b = 0; b < kBands; ++b)
    std::printf("%s [%d, %d): factors %.2f, rotations %.2f (fp32-angle factors %.1f)", b ? ";" : "", kBandStart[b],
                kBandStart[b + 1], factor_worst[b], rot_worst[b], fp32_worst[b]);
  std::printf("\n");
  // The test must be able to see the fp32-angle error it guards against: at the far band such
  // factors miss the rounding bound (if this fails, the bound is too loose to mean anything).
  EXPECT_GT(fp32_worst[kBands - 1], 1.0);

  // Decode path: one token at a time with the position from device memory, same table, same
  // results as the prefill path (bitwise: same inputs, same arithmetic).
  device_buffer<int> dpos(1);
  device_buffer<T> one(stride);
  for (int p : {1, 4095, 20000, max_len - 1}) {
    CUDABENCH_CHECK_CUDA(
        cudaMemcpy(one.get(), qkv.data() + static_cast<std::size_t>(p) * stride, one.bytes(), cudaMemcpyHostToDevice));
    CUDABENCH_CHECK_CUDA(cudaMemcpy(dpos.get(), &p, sizeof(int), cudaMemcpyHostToDevice));
    CUDABENCH_CHECK_CUDA(cudaMemset(kc.get(), 0, kc.bytes()));
    k::rope_kv_shape d = s;
    d.rows = 1;
    k::rope_kv_append<T>(one.get(), d, dtable.get(), dpos.get(), kc.get(), vc.get(), nullptr);
    CUDABENCH_CHECK_CUDA(cudaDeviceSynchronize());
    std::vector<T> q1(stride), k1(hd);
    CUDABENCH_CHECK_CUDA(cudaMemcpy(q1.data(), one.get(), one.bytes(), cudaMemcpyDeviceToHost));
    CUDABENCH_CHECK_CUDA(
        cudaMemcpy(k1.data(), kc.get() + static_cast<std::size_t>(p) * hd, hd * sizeof(T), cudaMemcpyDeviceToHost));
    for (int j = 0; j < nh * hd; ++j)
      EXPECT_EQ(to_f(q1[j]), to_f(got[static_cast<std::size_t>(p) * stride + j])) << "decode q, position " << p;
    for (int j = 0; j < hd; ++j)
      EXPECT_EQ(to_f(k1[j]), to_f(gotk[static_cast<std::size_t>(p) * hd + j])) << "decode k, position " << p;
  }
}

}  // namespace

TEST(LlmRope, LongPositionsFp16) {
  REQUIRE_GPU();
  for (int hd : {64, 128})
    for (double theta : {10000.0, 500000.0}) check_long_positions<__half>(hd, theta);
}

TEST(LlmRope, LongPositionsBf16) {
  REQUIRE_GPU();
  for (int hd : {64, 128})
    for (double theta : {10000.0, 500000.0}) check_long_positions<__nv_bfloat16>(hd, theta);
}

// The table alone (host): row p of make_rope_table is cos/sin of p theta^(-2i/d) rounded once.
TEST(LlmRope, TableIsRoundedFromDouble) {
  const int hd = 128, max_len = 40000;
  const auto t16 = k::make_rope_table<__half>(max_len, hd, 500000.0);
  const auto t32 = k::make_rope_table<__nv_bfloat16>(max_len, hd, 500000.0);
  ASSERT_EQ(t16.size(), static_cast<std::size_t>(max_len) * hd);
  for (int p : {0, 1, 777, 32767, max_len - 1})
    for (int i = 0; i < hd / 2; ++i) {
      const double a = p * std::pow(500000.0, -2.0 * i / hd);
      const std::size_t at = 2 * (static_cast<std::size_t>(p) * (hd / 2) + i);
      EXPECT_LE(std::abs(to_f(t16[at]) - std::cos(a)), factor_bound<__half>(std::cos(a))) << p << " " << i;
      EXPECT_LE(std::abs(to_f(t16[at + 1]) - std::sin(a)), factor_bound<__half>(std::sin(a))) << p << " " << i;
      EXPECT_LE(std::abs(to_f(t32[at]) - std::cos(a)), factor_bound<__nv_bfloat16>(std::cos(a))) << p << " " << i;
      EXPECT_LE(std::abs(to_f(t32[at + 1]) - std::sin(a)), factor_bound<__nv_bfloat16>(std::sin(a))) << p << " " << i;
    }
}
