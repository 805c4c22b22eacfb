// See attention_tf32x3.cuh. Block = 4 warps = 64 queries (16 per warp); key tiles of 32.
// Shared memory (static, 44 KB): Q [64][68], K [32][68], V [32][68], S/P [64][36]; the row
// pitches (68, 36 floats) keep every WMMA pointer 32-byte aligned and spread rows over banks.
#include "kernels/transformer_memory/attention_tf32x3.cuh"

#include <cstdint>
#include <stdexcept>

#include <mma.h>

#include "cudabench/gpu/cuda_check.hpp"

namespace cudabench::kernels::transformer_memory {
namespace {

using namespace nvcuda;

constexpr int hd = 64;
constexpr int bq = 64;  // queries per block
constexpr int bk = 32;  // keys per tile
constexpr int warps = 4;
constexpr int qk_pitch = hd + 4;
constexpr int s_pitch = bk + 4;

using frag_a_row = wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major>;
using frag_b_col = wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::col_major>;
using frag_b_row = wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major>;
using frag_acc = wmma::fragment<wmma::accumulator, 16, 16, 8, float>;

template <class F>
__device__ inline void split(F& hi, F& lo) {
#pragma unroll
  for (int t = 0; t < hi.num_elements; ++t) {
    const float v = hi.x[t];
    const float h = wmma::__float_to_tf32(v);
    hi.x[t] = h;
    lo.x[t] = wmma::__float_to_tf32(v - h);
  }
}

// acc += A (16x8, row-major at a, pitch lda) * B (8x16) in 3xTF32.
template <class FB>
__device__ inline void mma3(frag_acc& acc, const float* a, int lda, const float* b, int ldb) {
  frag_a_row a_hi, a_lo;
  FB b_hi, b_lo;
  wmma::load_matrix_sync(a_hi, a, lda);
  wmma::load_matrix_sync(b_hi, b, ldb);
  split(a_hi, a_lo);
  split(b_hi, b_lo);
  wmma::mma_sync(acc, a_lo, b_hi, acc);
  wmma::mma_sync(acc, a_hi, b_lo, acc);
  wmma::mma_sync(acc, a_hi, b_hi, acc);
}

struct smem_t {
  float q[bq][qk_pitch];
  float k[bk][qk_pitch];
  float v[bk][qk_pitch];
  float s[bq][s_pitch];
};

// Loads rows [row0, row0 + rows) of a head's [seq, 64] slice into dst (zeros past `valid`).
__device__ inline void load_tile(float (*dst)[qk_pitch], const float* base, std::int64_t ld, int row0, int rows,
                                 int valid) {
  for (int idx = threadIdx.x; idx < rows * (hd / 4); idx += warps * 32) {
    const int r = idx / (hd / 4), c4 = idx % (hd / 4);
    float4 val = make_float4(0.f, 0.f, 0.f, 0.f);
    if (row0 + r < valid)
      val = *reinterpret_cast<const float4*>(base + static_cast<std::int64_t>(row0 + r) * ld + c4 * 4);
    *reinterpret_cast<float4*>(&dst[r][c4 * 4]) = val;
  }
}

// The warp's 16x32 score tile S = Q_w K_tile^T into sm.s rows [16w, 16w+16).
__device__ inline void scores(smem_t& sm, int w) {
#pragma unroll
  for (int nb = 0; nb < bk / 16; ++nb) {
    frag_acc acc;
    wmma::fill_fragment(acc, 0.f);
#pragma unroll
    for (int ks = 0; ks < hd / 8; ++ks)  // B[k][n] = K[n][k]: column-major view of the K tile
      mma3<frag_b_col>(acc, &sm.q[16 * w][8 * ks], qk_pitch, &sm.k[16 * nb][8 * ks], qk_pitch);
    wmma::store_matrix_sync(&sm.s[16 * w][16 * nb], acc, s_pitch, wmma::mem_row_major);
  }
}

// grid (ceil(sq / 64), heads, batch), block 128.
__global__ void __launch_bounds__(warps * 32)
    attention_tf32x3_kernel(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v,
                            float* __restrict__ o, std::int64_t ldq, std::int64_t ldk, std::int64_t ldv,
                            std::int64_t ldo, int sq, int sk, float scale_log2) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 800
  __trap();  // TF32 WMMA needs sm_80; the launcher is only used where cudabench builds for it
#else
  __shared__ __align__(128) smem_t sm;
  const int b = blockIdx.z, h = blockIdx.y, q0 = blockIdx.x * bq;
  const int w = threadIdx.x / 32, lane = threadIdx.x % 32;
  const float* qb = q + static_cast<std::int64_t>(b) * sq * ldq + h * hd;
  const float* kb = k + static_cast<std::int64_t>(b) * sk * ldk + h * hd;
  const float* vb = v + static_cast<std::int64_t>(b) * sk * ldv + h * hd;
  load_tile(sm.q, qb, ldq, q0, bq, sq);

  // Lanes 2r and 2r+1 own row r of the warp's 16 query rows; each scans half of a tile's keys.
  const int row = 16 * w + lane / 2, half = lane % 2;
  float m = -INFINITY;
  for (int k0 = 0; k0 < sk; k0 += bk) {  // pass 1: row maxima of the scaled scores
    __syncthreads();                     // previous K tile consumed (and Q loaded)
    load_tile(sm.k, kb, ldk, k0, bk, sk);
    __syncthreads();
    scores(sm, w);
    __syncwarp();
    const int nvalid = min(bk, sk - k0);
#pragma unroll
    for (int j = half * (bk / 2); j < (half + 1) * (bk / 2); ++j)
      if (j < nvalid) m = fmaxf(m, sm.s[row][j] * scale_log2);
    __syncwarp();  // scores read before the next tile's are stored
  }
  m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, 1));

  frag_acc acc_o[hd / 16];
#pragma unroll
  for (int nb = 0; nb < hd / 16; ++nb) wmma::fill_fragment(acc_o[nb], 0.f);
  float l = 0.f;
  for (int k0 = 0; k0 < sk; k0 += bk) {  // pass 2: P = exp2(s - m), O += P V, l += sum P
    __syncthreads();
    load_tile(sm.k, kb, ldk, k0, bk, sk);
    load_tile(sm.v, vb, ldv, k0, bk, sk);
    __syncthreads();
    scores(sm, w);
    __syncwarp();
    const int nvalid = min(bk, sk - k0);
#pragma unroll
    for (int j = half * (bk / 2); j < (half + 1) * (bk / 2); ++j) {
      const float p = j < nvalid ? exp2f(sm.s[row][j] * scale_log2 - m) : 0.f;
      l += p;
      sm.s[row][j] = p;
    }
    __syncwarp();
#pragma unroll
    for (int nb = 0; nb < hd / 16; ++nb)
#pragma unroll
      for (int ks = 0; ks < bk / 8; ++ks)
        mma3<frag_b_row>(acc_o[nb], &sm.s[16 * w][8 * ks], s_pitch, &sm.v[8 * ks][16 * nb], qk_pitch);
  }
  l += __shfl_xor_sync(0xffffffffu, l, 1);

  // The warp's Q rows are no longer needed: stage O there, then normalise and write.
  __syncwarp();
#pragma unroll
  for (int nb = 0; nb < hd / 16; ++nb)
    wmma::store_matrix_sync(&sm.q[16 * w][16 * nb], acc_o[nb], qk_pitch, wmma::mem_row_major);
  __syncwarp();
  const int qi = q0 + row;
  if (qi < sq) {
    const float inv_l = 1.f / l;
    float* orow = o + (static_cast<std::int64_t>(b) * sq + qi) * ldo + h * hd;
#pragma unroll
    for (int c = half * (hd / 2); c < (half + 1) * (hd / 2); c += 4) {
      float4 val = *reinterpret_cast<const float4*>(&sm.q[row][c]);
      val.x *= inv_l;
      val.y *= inv_l;
      val.z *= inv_l;
      val.w *= inv_l;
      *reinterpret_cast<float4*>(orow + c) = val;
    }
  }
#endif
}

}  // namespace

void attention_forward_tf32x3(const attention_args& a, cudaStream_t stream) {
  if (a.type == dtype::fp16 || a.head_dim != hd)
    throw std::invalid_argument("attention_tf32x3: fp32 with head_dim 64 only");
  if (a.batch <= 0 || a.heads <= 0 || a.sq <= 0 || a.sk <= 0) throw std::invalid_argument("attention: empty shape");
  if (a.batch > 65535 || a.heads > 65535) throw std::invalid_argument("attention: batch/heads exceed grid limits");
  // float4 global accesses: every row start and head offset must be 16-byte aligned.
  if (a.ldq % 4 || a.ldk % 4 || a.ldv % 4 || a.ldo % 4 || reinterpret_cast<std::uintptr_t>(a.q) % 16 ||
      reinterpret_cast<std::uintptr_t>(a.k) % 16 || reinterpret_cast<std::uintptr_t>(a.v) % 16 ||
      reinterpret_cast<std::uintptr_t>(a.o) % 16)
    throw std::invalid_argument("attention_tf32x3: rows must be 16-byte aligned");
  const dim3 grid(static_cast<unsigned>((a.sq + bq - 1) / bq), static_cast<unsigned>(a.heads),
                  static_cast<unsigned>(a.batch));
  const float scale_log2 = 1.4426950408889634f / 8.f;  // log2(e) / sqrt(64)
  attention_tf32x3_kernel<<<grid, warps * 32, 0, stream>>>(static_cast<const float*>(a.q),
                                                           static_cast<const float*>(a.k),
                                                           static_cast<const float*>(a.v), static_cast<float*>(a.o),
                                                           a.ldq, a.ldk, a.ldv, a.ldo, a.sq, a.sk, scale_log2);
  CUDABENCH_CHECK_LAUNCH();
}

}  // namespace cudabench::kernels::transformer_memory
