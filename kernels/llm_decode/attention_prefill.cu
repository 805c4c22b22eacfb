// See attention_prefill.cuh: the dispatch, and the CUDA-core kernel for the head dims the
// tensor-core kernel (attention_prefill_mma.cu) is not built for.
// Layout: grid (num_heads, ceil(rows / 16)), 128 threads = 4 warps x 4 queries each.
// Shared memory (fp32): the tile's queries [16][hd] (pre-scaled), K chunk [32][hd + 1] (the odd
// row pitch keeps lane j's reads of K[j][d] in distinct banks), V chunk [32][hd].
// Per chunk, lane j scores key (chunk + j) for the warp's query; the warp updates the running max
// and sum, then every lane accumulates its output dimensions d = lane + 32 i with the 32
// probabilities broadcast by shuffles.
#include "kernels/llm_decode/attention_prefill.cuh"

#include <cassert>
#include <cmath>

#include "cudabench/gpu/cuda_check.hpp"
#include "kernels/common/reduce.cuh"
#include "kernels/common/shared_memory.cuh"
#include "kernels/llm_decode/attention_prefill_mma.cuh"
#include "kernels/llm_decode/device_utils.cuh"

namespace cudabench::kernels::llm_decode {
namespace {

constexpr int kThreads = 128;
constexpr int kWarps = kThreads / 32;
constexpr int kQueriesPerWarp = 4;
constexpr int kTile = kWarps * kQueriesPerWarp;  // queries per block
constexpr int kChunk = 32;                       // keys per shared-memory chunk (one per lane)
constexpr int kMaxDimPerLane = 8;                // head_dim <= 256

std::size_t smem_bytes(int hd) {
  return (static_cast<std::size_t>(kTile) * hd + kChunk * (hd + 1) + kChunk * hd) * sizeof(float);
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    attn_prefill_kernel(const T* qkv, const T* k_cache, const T* v_cache, attn_prefill_shape s, T* out) {
  extern __shared__ float smem[];
  const int hd = s.head_dim, kpitch = hd + 1;
  float* qs = smem;                  // [kTile][hd]
  float* ks = qs + kTile * hd;       // [kChunk][hd + 1]
  float* vs = ks + kChunk * kpitch;  // [kChunk][hd]
  const int head = blockIdx.x, kvh = head / (s.num_heads / s.num_kv_heads);
  const int q0 = blockIdx.y * kTile;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;

  for (int i = threadIdx.x; i < kTile * hd; i += kThreads) {
    const int qi = i / hd, d = i % hd, t = q0 + qi;
    qs[i] = t < s.rows ? to_float(qkv[static_cast<std::size_t>(t) * s.qkv_stride + head * hd + d]) * s.scale : 0.0f;
  }

  float m[kQueriesPerWarp], l[kQueriesPerWarp], o[kQueriesPerWarp][kMaxDimPerLane];
#pragma unroll
  for (int qq = 0; qq < kQueriesPerWarp; ++qq) {
    m[qq] = -INFINITY;
    l[qq] = 0.0f;
#pragma unroll
    for (int j = 0; j < kMaxDimPerLane; ++j) o[qq][j] = 0.0f;
  }

  const int key_end = min(q0 + kTile, s.rows);  // the tile's last query sees keys < key_end
  const T* kbase = k_cache + static_cast<std::size_t>(kvh) * s.max_len * hd;
  const T* vbase = v_cache + static_cast<std::size_t>(kvh) * s.max_len * hd;
  for (int c = 0; c < key_end; c += kChunk) {
    __syncthreads();  // the previous chunk is consumed (first pass: qs is written)
    for (int i = threadIdx.x; i < kChunk * hd; i += kThreads) {
      const int j = i / hd, d = i % hd, key = c + j;
      const bool in = key < key_end;
      ks[j * kpitch + d] = in ? to_float(kbase[static_cast<std::size_t>(key) * hd + d]) : 0.0f;
      vs[j * hd + d] = in ? to_float(vbase[static_cast<std::size_t>(key) * hd + d]) : 0.0f;
    }
    __syncthreads();

#pragma unroll
    for (int qq = 0; qq < kQueriesPerWarp; ++qq) {
      const int qi = warp * kQueriesPerWarp + qq, t = q0 + qi;
      if (t >= s.rows || c > t) continue;  // warp-uniform: no key of this chunk is visible
      const int key = c + lane;
      const bool visible = key <= t;
      float score = -INFINITY;
      if (visible) {
        float acc = 0.0f;
        const float* qrow = qs + qi * hd;
        const float* krow = ks + lane * kpitch;
        for (int d = 0; d < hd; ++d) acc = fmaf(qrow[d], krow[d], acc);
        score = acc;
      }
      const float m_new = fmaxf(m[qq], warp_max(score));  // finite: key c <= t is visible
      const float alpha = expf(m[qq] - m_new);            // 0 on the first chunk (m = -inf)
      const float p = visible ? expf(score - m_new) : 0.0f;
      l[qq] = l[qq] * alpha + warp_sum(p);
      m[qq] = m_new;
#pragma unroll
      for (int j = 0; j < kMaxDimPerLane; ++j) o[qq][j] *= alpha;
      const int last = min(kChunk, t - c + 1);  // keys c .. c+last-1 are visible
      for (int jj = 0; jj < last; ++jj) {
        const float pj = __shfl_sync(0xffffffffu, p, jj);
#pragma unroll
        for (int j = 0; j < kMaxDimPerLane; ++j) {
          const int d = lane + 32 * j;
          if (d < hd) o[qq][j] = fmaf(pj, vs[jj * hd + d], o[qq][j]);
        }
      }
    }
  }

#pragma unroll
  for (int qq = 0; qq < kQueriesPerWarp; ++qq) {
    const int t = q0 + warp * kQueriesPerWarp + qq;
    if (t >= s.rows) continue;
    const float inv_l = 1.0f / l[qq];
    T* orow = out + static_cast<std::size_t>(t) * s.num_heads * hd + static_cast<std::size_t>(head) * hd;
#pragma unroll
    for (int j = 0; j < kMaxDimPerLane; ++j) {
      const int d = lane + 32 * j;
      if (d < hd) orow[d] = from_float<T>(o[qq][j] * inv_l);
    }
  }
}

}  // namespace

template <class T>
void attention_prefill(const T* qkv, const T* k_cache, const T* v_cache, const attn_prefill_shape& s, T* out,
                       cudaStream_t stream) {
  assert(qkv && k_cache && v_cache && out && s.rows > 0 && s.rows <= s.max_len);
  assert(s.num_kv_heads > 0 && s.num_heads % s.num_kv_heads == 0);
  assert(s.head_dim > 0 && s.head_dim <= 32 * kMaxDimPerLane);
  if (attention_prefill_mma<T>(qkv, k_cache, v_cache, s, out, stream)) return;
  attention_prefill_cuda_cores<T>(qkv, k_cache, v_cache, s, out, stream);
}

template <class T>
void attention_prefill_cuda_cores(const T* qkv, const T* k_cache, const T* v_cache, const attn_prefill_shape& s, T* out,
                                  cudaStream_t stream) {
  const std::size_t smem = smem_bytes(s.head_dim);
  opt_in_shared_memory(attn_prefill_kernel<T>, smem);
  const dim3 grid(s.num_heads, (s.rows + kTile - 1) / kTile);
  attn_prefill_kernel<T><<<grid, kThreads, smem, stream>>>(qkv, k_cache, v_cache, s, out);
  CUDABENCH_CHECK_LAUNCH();
}

template void attention_prefill_cuda_cores<__half>(const __half*, const __half*, const __half*,
                                                   const attn_prefill_shape&, __half*, cudaStream_t);
template void attention_prefill_cuda_cores<__nv_bfloat16>(const __nv_bfloat16*, const __nv_bfloat16*,
                                                          const __nv_bfloat16*, const attn_prefill_shape&,
                                                          __nv_bfloat16*, cudaStream_t);
template void attention_prefill<__half>(const __half*, const __half*, const __half*, const attn_prefill_shape&, __half*,
                                        cudaStream_t);
template void attention_prefill<__nv_bfloat16>(const __nv_bfloat16*, const __nv_bfloat16*, const __nv_bfloat16*,
                                               const attn_prefill_shape&, __nv_bfloat16*, cudaStream_t);

}  // namespace cudabench::kernels::llm_decode
