// See attention_decode.cuh.
// Split kernel: grid (num_kv_heads, max_splits), 128 threads. Shared memory: the group's queries
// (fp32, pre-scaled) and the chunk's scores. A warp scores one key at a time for all heads of the
// group (lane d holds K[d], d = lane + 32 j); softmax statistics per head; then threads own
// (head, d) outputs and sum p_t V[t][d] over the chunk (consecutive threads read consecutive d).
// Merge kernel: grid num_heads; each warp computes the splits' global max and sum lane-parallel,
// then each thread combines its dimensions over the splits.
#include "kernels/llm_decode/attention_decode.cuh"

#include <cassert>
#include <cmath>

#include "cudabench/cuda_check.hpp"
#include "kernels/common/reduce.cuh"
#include "kernels/llm_decode/device_utils.cuh"
#include "kernels/llm_decode/launch.cuh"

namespace cudabench::kernels::llm {
namespace {

constexpr int kThreads = 128;
constexpr int kWarps = kThreads / 32;
constexpr int kMaxDimPerLane = 8;  // head_dim <= 256

template <class T>
__global__ void __launch_bounds__(kThreads)
    attn_split_kernel(const T* q, const T* k_cache, const T* v_cache, const int* pos, attn_decode_shape s,
                      float* partial_out, float* partial_ml) {
  extern __shared__ float smem[];
  const int group = s.num_heads / s.num_kv_heads, hd = s.head_dim, splits = s.max_splits();
  float* qs = smem;               // [group][hd]
  float* sc = smem + group * hd;  // [group][chunk]
  const int kvh = blockIdx.x, split = blockIdx.y;
  pdl_trigger();
  pdl_wait();
  const int seq = *pos + 1, start = split * s.chunk;
  if (start >= seq) return;  // whole block: no barrier has been reached yet
  const int n = min(s.chunk, seq - start);
  const int head0 = kvh * group;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;

  for (int i = threadIdx.x; i < group * hd; i += kThreads) qs[i] = to_float(q[head0 * hd + i]) * s.scale;
  __syncthreads();

  const T* kb = k_cache + (static_cast<std::size_t>(kvh) * s.max_len + start) * hd;
  const T* vb = v_cache + (static_cast<std::size_t>(kvh) * s.max_len + start) * hd;
  for (int t = warp; t < n; t += kWarps) {
    float kf[kMaxDimPerLane];
#pragma unroll
    for (int j = 0; j < kMaxDimPerLane; ++j) {
      const int d = lane + 32 * j;
      kf[j] = d < hd ? to_float(kb[static_cast<std::size_t>(t) * hd + d]) : 0.0f;
    }
    for (int g = 0; g < group; ++g) {
      float dot = 0.0f;
#pragma unroll
      for (int j = 0; j < kMaxDimPerLane; ++j) {
        const int d = lane + 32 * j;
        if (d < hd) dot = fmaf(kf[j], qs[g * hd + d], dot);
      }
      dot = warp_sum(dot);
      if (lane == 0) sc[g * s.chunk + t] = dot;
    }
  }
  __syncthreads();

  for (int g = warp; g < group; g += kWarps) {
    float m = -INFINITY;
    for (int t = lane; t < n; t += 32) m = fmaxf(m, sc[g * s.chunk + t]);
    m = warp_max(m);
    float l = 0.0f;
    for (int t = lane; t < n; t += 32) {
      const float e = expf(sc[g * s.chunk + t] - m);
      sc[g * s.chunk + t] = e;
      l += e;
    }
    l = warp_sum(l);
    if (lane == 0) {
      float* ml = partial_ml + (static_cast<std::size_t>(head0 + g) * splits + split) * 2;
      ml[0] = m;
      ml[1] = l;
    }
  }
  __syncthreads();

  for (int i = threadIdx.x; i < group * hd; i += kThreads) {
    const int g = i / hd, d = i % hd;
    float acc = 0.0f;
    for (int t = 0; t < n; ++t)
      acc = fmaf(sc[g * s.chunk + t], to_float(vb[static_cast<std::size_t>(t) * hd + d]), acc);
    partial_out[(static_cast<std::size_t>(head0 + g) * splits + split) * hd + d] = acc;
  }
}

template <class T>
__global__ void __launch_bounds__(kThreads)
    attn_merge_kernel(const int* pos, attn_decode_shape s, const float* partial_out, const float* partial_ml, T* out) {
  const int head = blockIdx.x, hd = s.head_dim, splits = s.max_splits();
  pdl_trigger();
  pdl_wait();
  const int used = (*pos + 1 + s.chunk - 1) / s.chunk;
  const float* ml = partial_ml + static_cast<std::size_t>(head) * splits * 2;
  // Global max and sum: every warp computes them (identically) with its lanes over the splits,
  // one L2 round trip for up to 32 splits instead of a serial walk per thread.
  const int lane = threadIdx.x % 32;
  float m = -INFINITY;
  for (int i = lane; i < used; i += 32) m = fmaxf(m, ml[2 * i]);
  m = warp_max(m);
  float l = 0.0f;
  for (int i = lane; i < used; i += 32) l += ml[2 * i + 1] * expf(ml[2 * i] - m);
  l = warp_sum(l);
  const float inv_l = 1.0f / l;
  const float* po = partial_out + static_cast<std::size_t>(head) * splits * hd;
  for (int d = threadIdx.x; d < hd; d += kThreads) {
    float acc = 0.0f;
    for (int i = 0; i < used; ++i) acc = fmaf(po[static_cast<std::size_t>(i) * hd + d], expf(ml[2 * i] - m), acc);
    out[static_cast<std::size_t>(head) * hd + d] = from_float<T>(acc * inv_l);
  }
}

}  // namespace

template <class T>
void attention_decode(const T* q, const T* k_cache, const T* v_cache, const int* pos, const attn_decode_shape& s,
                      float* partial_out, float* partial_ml, T* out, cudaStream_t stream) {
  assert(q && k_cache && v_cache && pos && partial_out && partial_ml && out);
  assert(s.num_kv_heads > 0 && s.num_heads % s.num_kv_heads == 0);
  assert(s.head_dim > 0 && s.head_dim <= 32 * kMaxDimPerLane && s.chunk > 0 && s.max_len > 0);
  const int group = s.num_heads / s.num_kv_heads;
  const std::size_t smem = static_cast<std::size_t>(group) * (s.head_dim + s.chunk) * sizeof(float);
  if (smem > 48 * 1024)
    CUDABENCH_CHECK_CUDA(cudaFuncSetAttribute(attn_split_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              static_cast<int>(smem)));
  launch(attn_split_kernel<T>, dim3(s.num_kv_heads, s.max_splits()), dim3(kThreads), smem, stream, q, k_cache, v_cache,
         pos, s, partial_out, partial_ml);
  launch(attn_merge_kernel<T>, dim3(s.num_heads), dim3(kThreads), 0, stream, pos, s,
         static_cast<const float*>(partial_out), static_cast<const float*>(partial_ml), out);
}

template void attention_decode<__half>(const __half*, const __half*, const __half*, const int*,
                                       const attn_decode_shape&, float*, float*, __half*, cudaStream_t);
template void attention_decode<__nv_bfloat16>(const __nv_bfloat16*, const __nv_bfloat16*, const __nv_bfloat16*,
                                              const int*, const attn_decode_shape&, float*, float*, __nv_bfloat16*,
                                              cudaStream_t);

}  // namespace cudabench::kernels::llm
