// See rope_kv.cuh. One block per token; threads walk the (head, pair) rotations of q and k, then
// the v copy. Accurate cosf/sinf (not the fast intrinsics): angles reach thousands of radians.
#include "kernels/llm/rope_kv.cuh"

#include <cassert>

#include "cudabench/cuda_check.hpp"
#include "kernels/llm/device_utils.cuh"
#include "kernels/llm/launch.cuh"

namespace cudabench::kernels::llm {
namespace {

template <class T>
__global__ void rope_kv_kernel(T* qkv, rope_kv_shape s, const int* pos_ptr, T* k_cache, T* v_cache) {
  pdl_trigger();
  pdl_wait();
  const int r = blockIdx.x;
  const int p = pos_ptr ? *pos_ptr : r;
  if (p < 0 || p >= s.max_len) return;  // never happens for validated shapes; keeps the cache safe
  T* row = qkv + static_cast<std::size_t>(r) * s.qkv_stride;
  const int half = s.head_dim / 2;
  const int q_dim = s.num_heads * s.head_dim, kv_dim = s.num_kv_heads * s.head_dim;

  for (int idx = threadIdx.x; idx < (s.num_heads + s.num_kv_heads) * half; idx += blockDim.x) {
    const int head = idx / half, i = idx % half;  // heads >= num_heads are k heads
    const float inv_freq = 1.0f / powf(s.rope_theta, static_cast<float>(2 * i) / static_cast<float>(s.head_dim));
    const float angle = static_cast<float>(p) * inv_freq;
    const float c = round_to<T>(cosf(angle)), sn = round_to<T>(sinf(angle));
    T* v = row + head * s.head_dim;  // k heads follow the q heads contiguously
    const float x1 = to_float(v[i]), x2 = to_float(v[i + half]);
    const T o1 = from_float<T>(round_to<T>(x1 * c) + round_to<T>(-x2 * sn));
    const T o2 = from_float<T>(round_to<T>(x2 * c) + round_to<T>(x1 * sn));
    if (head < s.num_heads) {
      v[i] = o1;
      v[i + half] = o2;
    } else {
      T* dst = k_cache + (static_cast<std::size_t>(head - s.num_heads) * s.max_len + p) * s.head_dim;
      dst[i] = o1;
      dst[i + half] = o2;
    }
  }
  const T* vsrc = row + q_dim + kv_dim;
  for (int idx = threadIdx.x; idx < kv_dim; idx += blockDim.x) {
    const int head = idx / s.head_dim, d = idx % s.head_dim;
    v_cache[(static_cast<std::size_t>(head) * s.max_len + p) * s.head_dim + d] = vsrc[idx];
  }
}

}  // namespace

template <class T>
void rope_kv_append(T* qkv, const rope_kv_shape& s, const int* pos, T* k_cache, T* v_cache, cudaStream_t stream) {
  assert(qkv && k_cache && v_cache && s.rows > 0 && s.head_dim % 2 == 0 && s.num_heads % s.num_kv_heads == 0);
  assert(!pos || s.rows == 1);
  assert(pos || s.rows <= s.max_len);
  launch(rope_kv_kernel<T>, dim3(s.rows), dim3(128), 0, stream, qkv, s, pos, k_cache, v_cache);
}

template void rope_kv_append<__half>(__half*, const rope_kv_shape&, const int*, __half*, __half*, cudaStream_t);
template void rope_kv_append<__nv_bfloat16>(__nv_bfloat16*, const rope_kv_shape&, const int*, __nv_bfloat16*,
                                            __nv_bfloat16*, cudaStream_t);

}  // namespace cudabench::kernels::llm
