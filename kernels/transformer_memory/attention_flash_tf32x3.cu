// See attention_flash_tf32x3.cuh. Block = 4 warps = 64 queries (16 rows per warp); key tiles of 64.
// Shared memory (static, 34 KB): K [64][68] and V [64][68]; the 68-float pitch makes each
// B-fragment read (K: 8 keys x 4 dims; V: 4 key pairs x 8 dims) touch 32 distinct banks.
// mma.m16n8k8 TF32 fragment layout (g = lane / 4, t = lane % 4; PTX ISA):
//   A 16x8: a0 (g, t)      a1 (g+8, t)      a2 (g, t+4)    a3 (g+8, t+4)
//   B 8x8:  b0 (k=t, n=g)  b1 (k=t+4, n=g)
//   C 16x8: c0 (g, 2t)     c1 (g, 2t+1)     c2 (g+8, 2t)   c3 (g+8, 2t+1)
// P.V feeds the score accumulators straight in as the A operand by relabelling the 8 keys of each
// step: A column t is key 2t (c0/c2) and column t+4 is key 2t+1 (c1/c3), so V's B fragment reads
// rows 2t and 2t+1 -- a sum over keys does not depend on their order.
#include "kernels/transformer_memory/attention_flash_tf32x3.cuh"

#include <cstdint>
#include <stdexcept>

#include "cudabench/gpu/cuda_check.hpp"

namespace cudabench::kernels::transformer_memory {
namespace {

constexpr int hd = 64;
constexpr int bq = 64;  // queries per block
constexpr int bk = 64;  // keys per tile
constexpr int warps = 4;
constexpr int pitch = hd + 4;

struct tf32_pair {
  std::uint32_t hi, lo;
};

__device__ inline std::uint32_t to_tf32(float x) {
  std::uint32_t r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return r;
}

// x = hi + lo to ~22 bits: hi is x rounded to TF32 (an fp32 bit pattern with the low 13 mantissa
// bits clear), lo the TF32 rounding of the remainder.
__device__ inline tf32_pair split(float x) {
  const std::uint32_t h = to_tf32(x);
  return tf32_pair{h, to_tf32(x - __uint_as_float(h))};
}

__device__ inline void mma(float (&c)[4], std::uint32_t a0, std::uint32_t a1, std::uint32_t a2, std::uint32_t a3,
                           std::uint32_t b0, std::uint32_t b1) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
}

// c += A B in 3xTF32: the small cross terms first, then hi*hi.
__device__ inline void mma3(float (&c)[4], const tf32_pair (&a)[4], const tf32_pair (&b)[2]) {
  mma(c, a[0].lo, a[1].lo, a[2].lo, a[3].lo, b[0].hi, b[1].hi);
  mma(c, a[0].hi, a[1].hi, a[2].hi, a[3].hi, b[0].lo, b[1].lo);
  mma(c, a[0].hi, a[1].hi, a[2].hi, a[3].hi, b[0].hi, b[1].hi);
}

// grid (ceil(sq / 64), heads, batch), block 128.
__global__ void __launch_bounds__(warps * 32)
    attention_flash_tf32x3_kernel(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v,
                                  float* __restrict__ o, std::int64_t ldq, std::int64_t ldk, std::int64_t ldv,
                                  std::int64_t ldo, int sq, int sk, float scale_log2) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  __trap();  // TF32 mma.sync needs sm_80; the launcher is only used where cudabench builds for it
#else
  __shared__ __align__(16) float k_s[bk][pitch];
  __shared__ __align__(16) float v_s[bk][pitch];
  const int b = blockIdx.z, h = blockIdx.y;
  const int w = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
  const int r0 = blockIdx.x * bq + 16 * w + g, r1 = r0 + 8;  // this thread's two query rows
  const float* qb = q + static_cast<std::int64_t>(b) * sq * ldq + h * hd;
  const float* kb = k + static_cast<std::int64_t>(b) * sk * ldk + h * hd;
  const float* vb = v + static_cast<std::int64_t>(b) * sk * ldv + h * hd;

  // The warp's Q rows as A fragments (dims 8kk .. 8kk+7), scaled into the log2 domain (exp2 of a
  // scaled score is e^(s/8)) and split once. Rows past sq are zeros: finite scores, never stored.
  tf32_pair qa[hd / 8][4];
#pragma unroll
  for (int kk = 0; kk < hd / 8; ++kk) {
    const int c0 = 8 * kk + t, c1 = c0 + 4;
    const float* q0 = qb + static_cast<std::int64_t>(r0) * ldq;
    const float* q1 = qb + static_cast<std::int64_t>(r1) * ldq;
    qa[kk][0] = split(r0 < sq ? q0[c0] * scale_log2 : 0.f);
    qa[kk][1] = split(r1 < sq ? q1[c0] * scale_log2 : 0.f);
    qa[kk][2] = split(r0 < sq ? q0[c1] * scale_log2 : 0.f);
    qa[kk][3] = split(r1 < sq ? q1[c1] * scale_log2 : 0.f);
  }

  float acc[hd / 8][4];  // O tile as 8 C fragments (dims 8n .. 8n+7)
#pragma unroll
  for (int n = 0; n < hd / 8; ++n) acc[n][0] = acc[n][1] = acc[n][2] = acc[n][3] = 0.f;
  // Running max of rows r0/r1 (equal across the quad) and this thread's share of their sums.
  float m0 = -INFINITY, m1 = -INFINITY, l0 = 0.f, l1 = 0.f;

  for (int k0 = 0; k0 < sk; k0 += bk) {
    __syncthreads();  // every warp is done with the previous K/V tile
    for (int idx = threadIdx.x; idx < bk * (hd / 4); idx += warps * 32) {
      const int r = idx / (hd / 4), c = (idx % (hd / 4)) * 4;
      float4 kv4 = make_float4(0.f, 0.f, 0.f, 0.f), vv4 = kv4;
      if (k0 + r < sk) {
        kv4 = *reinterpret_cast<const float4*>(kb + static_cast<std::int64_t>(k0 + r) * ldk + c);
        vv4 = *reinterpret_cast<const float4*>(vb + static_cast<std::int64_t>(k0 + r) * ldv + c);
      }
      *reinterpret_cast<float4*>(&k_s[r][c]) = kv4;
      *reinterpret_cast<float4*>(&v_s[r][c]) = vv4;
    }
    __syncthreads();

    // S = Q K^T for the tile's 64 keys: s[j] is the C fragment of keys 8j .. 8j+7.
    float s[bk / 8][4];
#pragma unroll
    for (int j = 0; j < bk / 8; ++j) {
      s[j][0] = s[j][1] = s[j][2] = s[j][3] = 0.f;
#pragma unroll
      for (int kk = 0; kk < hd / 8; ++kk) {  // B[dim][key] = K[key][dim]
        const tf32_pair kf[2] = {split(k_s[8 * j + g][8 * kk + t]), split(k_s[8 * j + g][8 * kk + t + 4])};
        mma3(s[j], qa[kk], kf);
      }
    }
    const int nvalid = min(bk, sk - k0);  // >= 1: the tile starts inside the sequence
    if (nvalid < bk) {
#pragma unroll
      for (int j = 0; j < bk / 8; ++j) {
        if (8 * j + 2 * t >= nvalid) s[j][0] = s[j][2] = -INFINITY;
        if (8 * j + 2 * t + 1 >= nvalid) s[j][1] = s[j][3] = -INFINITY;
      }
    }

    // Online softmax: new row maxima over the quad, rescale what was accumulated so far.
    float mx0 = m0, mx1 = m1;
#pragma unroll
    for (int j = 0; j < bk / 8; ++j) {
      mx0 = fmaxf(mx0, fmaxf(s[j][0], s[j][1]));
      mx1 = fmaxf(mx1, fmaxf(s[j][2], s[j][3]));
    }
    mx0 = fmaxf(mx0, __shfl_xor_sync(0xffffffffu, mx0, 1));
    mx0 = fmaxf(mx0, __shfl_xor_sync(0xffffffffu, mx0, 2));
    mx1 = fmaxf(mx1, __shfl_xor_sync(0xffffffffu, mx1, 1));
    mx1 = fmaxf(mx1, __shfl_xor_sync(0xffffffffu, mx1, 2));
    const float corr0 = exp2f(m0 - mx0), corr1 = exp2f(m1 - mx1);  // 0 on the first tile (m = -inf)
    m0 = mx0;
    m1 = mx1;
    l0 *= corr0;
    l1 *= corr1;
#pragma unroll
    for (int n = 0; n < hd / 8; ++n) {
      acc[n][0] *= corr0;
      acc[n][1] *= corr0;
      acc[n][2] *= corr1;
      acc[n][3] *= corr1;
    }
#pragma unroll
    for (int j = 0; j < bk / 8; ++j) {  // masked keys: exp2(-inf) = 0
      s[j][0] = exp2f(s[j][0] - m0);
      s[j][1] = exp2f(s[j][1] - m0);
      s[j][2] = exp2f(s[j][2] - m1);
      s[j][3] = exp2f(s[j][3] - m1);
      l0 += s[j][0] + s[j][1];
      l1 += s[j][2] + s[j][3];
    }

    // O += P V, 8 keys per step; A = P with the key relabelling described at the top.
#pragma unroll
    for (int j = 0; j < bk / 8; ++j) {
      const tf32_pair pa[4] = {split(s[j][0]), split(s[j][2]), split(s[j][1]), split(s[j][3])};
#pragma unroll
      for (int n = 0; n < hd / 8; ++n) {
        const tf32_pair vf[2] = {split(v_s[8 * j + 2 * t][8 * n + g]), split(v_s[8 * j + 2 * t + 1][8 * n + g])};
        mma3(acc[n], pa, vf);
      }
    }
  }

  l0 += __shfl_xor_sync(0xffffffffu, l0, 1);
  l0 += __shfl_xor_sync(0xffffffffu, l0, 2);
  l1 += __shfl_xor_sync(0xffffffffu, l1, 1);
  l1 += __shfl_xor_sync(0xffffffffu, l1, 2);
  const float inv0 = 1.f / l0, inv1 = 1.f / l1;
  float* ob = o + static_cast<std::int64_t>(b) * sq * ldo + h * hd;
#pragma unroll
  for (int n = 0; n < hd / 8; ++n) {
    const int c = 8 * n + 2 * t;
    if (r0 < sq)
      *reinterpret_cast<float2*>(ob + static_cast<std::int64_t>(r0) * ldo + c) =
          make_float2(acc[n][0] * inv0, acc[n][1] * inv0);
    if (r1 < sq)
      *reinterpret_cast<float2*>(ob + static_cast<std::int64_t>(r1) * ldo + c) =
          make_float2(acc[n][2] * inv1, acc[n][3] * inv1);
  }
#endif
}

}  // namespace

void attention_forward_flash_tf32x3(const attention_args& a, cudaStream_t stream) {
  if (a.type == dtype::fp16 || a.head_dim != hd)
    throw std::invalid_argument("attention_flash_tf32x3: fp32 with head_dim 64 only");
  if (a.batch <= 0 || a.heads <= 0 || a.sq <= 0 || a.sk <= 0) throw std::invalid_argument("attention: empty shape");
  if (a.batch > 65535 || a.heads > 65535) throw std::invalid_argument("attention: batch/heads exceed grid limits");
  // float4 K/V loads and float2 O stores: K/V rows 16-byte aligned, O rows 8-byte aligned.
  if (a.ldk % 4 || a.ldv % 4 || a.ldo % 2 || reinterpret_cast<std::uintptr_t>(a.k) % 16 ||
      reinterpret_cast<std::uintptr_t>(a.v) % 16 || reinterpret_cast<std::uintptr_t>(a.o) % 8)
    throw std::invalid_argument("attention_flash_tf32x3: K/V rows must be 16-byte and O rows 8-byte aligned");
  const dim3 grid(static_cast<unsigned>((a.sq + bq - 1) / bq), static_cast<unsigned>(a.heads),
                  static_cast<unsigned>(a.batch));
  const float scale_log2 = 1.4426950408889634f / 8.f;  // log2(e) / sqrt(64)
  attention_flash_tf32x3_kernel<<<grid, warps * 32, 0, stream>>>(
      static_cast<const float*>(a.q), static_cast<const float*>(a.k), static_cast<const float*>(a.v),
      static_cast<float*>(a.o), a.ldq, a.ldk, a.ldv, a.ldo, a.sq, a.sk, scale_log2);
  CUDABENCH_CHECK_LAUNCH();
}

}  // namespace cudabench::kernels::transformer_memory
