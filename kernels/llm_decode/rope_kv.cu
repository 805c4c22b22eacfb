// See rope_kv.cuh. Two kernels, one rule (rope_math.cuh), the same bits:
//  - packed (every Llama shape: head_dim a multiple of 16, 16-byte aligned rows): a thread rotates
//    8 consecutive pairs of one head -- one 16-byte load of x_i..x_i+7, one of their partners, two
//    of the table's (cos, sin) -- or copies 8 elements of v; a flat grid-stride loop over every
//    token's work. The 2048-token prefill moves ~82 MB per layer here, and 2-byte accesses ran it at
//    23% of copy bandwidth (results/h200/llm-i21/llm-profile.md): 16-byte ones let it stream.
//  - scalar (any even head_dim): grid (token, slice), one thread per rotation, grid-stride over the
//    token's rotations, then its v copy (each rotation reads and writes only its own pair, so
//    blocks never touch the same element).
// Several blocks per token because decode has one token: a single 128-thread block did 32 serial
// rotations per thread (Llama-2-7B) on the critical path of every layer. cos/sin come from the
// table (rope_kv.cuh says why a table).
#include "kernels/llm_decode/rope_kv.cuh"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>

#include "cudabench/gpu/cuda_check.hpp"
#include "kernels/llm_decode/device_utils.cuh"
#include "kernels/llm_decode/launch.cuh"
#include "kernels/llm_decode/rope_math.cuh"

namespace cudabench::kernels::llm_decode {
namespace {

template <class T>
__global__ void rope_kv_kernel(T* qkv, rope_kv_shape s, const std::uint32_t* table, const int* pos_ptr, T* k_cache,
                               T* v_cache) {
  pdl_trigger();
  pdl_wait();
  const int r = blockIdx.x;
  const int p = pos_ptr ? *pos_ptr : r;
  if (p < 0 || p >= s.max_len) return;  // never happens for validated shapes; keeps the cache safe
  T* row = qkv + static_cast<std::size_t>(r) * s.qkv_stride;
  const int half = s.head_dim / 2;
  const int q_dim = s.num_heads * s.head_dim, kv_dim = s.num_kv_heads * s.head_dim;

  const std::uint32_t* factors = table + static_cast<std::size_t>(p) * half;  // (cos, sin) pairs of position p
  const int first = blockIdx.y * blockDim.x + threadIdx.x, stride = gridDim.y * blockDim.x;
  for (int idx = first; idx < (s.num_heads + s.num_kv_heads) * half; idx += stride) {
    const int head = idx / half, i = idx % half;  // heads >= num_heads are k heads
    T* v = row + head * s.head_dim;               // k heads follow the q heads contiguously
    T o1, o2;
    rotate_pair<T>(to_float(v[i]), to_float(v[i + half]), factors[i], o1, o2);
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
  for (int idx = first; idx < kv_dim; idx += stride) {
    const int head = idx / s.head_dim, d = idx % s.head_dim;
    v_cache[(static_cast<std::size_t>(head) * s.max_len + p) * s.head_dim + d] = vsrc[idx];
  }
}

// 8 pairs per thread: unit u < rot_units rotates pairs [8 (u % per_head), +8) of head u / per_head
// (per_head = head_dim / 16; heads >= num_heads are k heads), the rest copy 8 elements of v each.
template <class T>
__global__ void rope_kv_packed_kernel(T* qkv, rope_kv_shape s, const std::uint32_t* table, const int* pos_ptr,
                                      T* k_cache, T* v_cache) {
  pdl_trigger();
  pdl_wait();
  const int half = s.head_dim / 2, per_head = half / 8;
  const int rot_units = (s.num_heads + s.num_kv_heads) * per_head;
  const int v_units = s.num_kv_heads * s.head_dim / 8;
  const int units = rot_units + v_units;
  const int q_dim = s.num_heads * s.head_dim, kv_dim = s.num_kv_heads * s.head_dim;
  const std::int64_t total = static_cast<std::int64_t>(pos_ptr ? 1 : s.rows) * units;
  for (std::int64_t idx = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; idx < total;
       idx += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const int r = static_cast<int>(idx / units), u = static_cast<int>(idx % units);
    const int p = pos_ptr ? *pos_ptr : r;
    if (p < 0 || p >= s.max_len) continue;  // never happens for validated shapes; keeps the cache safe
    T* row = qkv + static_cast<std::size_t>(r) * s.qkv_stride;
    if (u < rot_units) {
      const int head = u / per_head, i = 8 * (u % per_head);
      T* v = row + head * s.head_dim;  // k heads follow the q heads contiguously
      const uint4 a = *reinterpret_cast<const uint4*>(v + i), b = *reinterpret_cast<const uint4*>(v + i + half);
      const uint4* f = reinterpret_cast<const uint4*>(table + static_cast<std::size_t>(p) * half + i);
      const uint4 f0 = f[0], f1 = f[1];
      T x1[8], x2[8], o1[8], o2[8];
      std::uint32_t fac[8];
      memcpy(x1, &a, 16);
      memcpy(x2, &b, 16);
      memcpy(fac, &f0, 16);
      memcpy(fac + 4, &f1, 16);
#pragma unroll
      for (int j = 0; j < 8; ++j) rotate_pair<T>(to_float(x1[j]), to_float(x2[j]), fac[j], o1[j], o2[j]);
      T* dst = head < s.num_heads
                   ? v
                   : k_cache + (static_cast<std::size_t>(head - s.num_heads) * s.max_len + p) * s.head_dim;
      uint4 w1, w2;
      memcpy(&w1, o1, 16);
      memcpy(&w2, o2, 16);
      *reinterpret_cast<uint4*>(dst + i) = w1;
      *reinterpret_cast<uint4*>(dst + i + half) = w2;
    } else {
      const int e = 8 * (u - rot_units), head = e / s.head_dim, d = e % s.head_dim;
      const uint4 val = *reinterpret_cast<const uint4*>(row + q_dim + kv_dim + e);
      *reinterpret_cast<uint4*>(v_cache + (static_cast<std::size_t>(head) * s.max_len + p) * s.head_dim + d) = val;
    }
  }
}

// Round to nearest straight from double (through float would round twice).
template <class T>
T round_from_double(double v);
template <>
__half round_from_double<__half>(double v) {
  return __double2half(v);
}
template <>
__nv_bfloat16 round_from_double<__nv_bfloat16>(double v) {
  return __double2bfloat16(v);
}

}  // namespace

template <class T>
std::vector<T> make_rope_table(int max_len, int head_dim, double theta) {
  assert(max_len > 0 && head_dim > 0 && head_dim % 2 == 0 && theta > 0);
  const int half = head_dim / 2;
  std::vector<double> inv_freq(half);
  for (int i = 0; i < half; ++i) inv_freq[i] = std::pow(theta, -2.0 * i / head_dim);
  std::vector<T> table(static_cast<std::size_t>(max_len) * head_dim);
  for (int p = 0; p < max_len; ++p)
    for (int i = 0; i < half; ++i) {
      // p * inv_freq in double: relative error ~1e-16, so ~1e-11 rad at p = 10^5 (fp16 resolves 2^-11).
      const double angle = p * inv_freq[i];
      const std::size_t at = 2 * (static_cast<std::size_t>(p) * half + i);
      table[at] = round_from_double<T>(std::cos(angle));
      table[at + 1] = round_from_double<T>(std::sin(angle));
    }
  return table;
}

template <class T>
void rope_kv_append(T* qkv, const rope_kv_shape& s, const T* table, const int* pos, T* k_cache, T* v_cache,
                    cudaStream_t stream) {
  assert(qkv && table && k_cache && v_cache && s.rows > 0 && s.head_dim % 2 == 0 && s.num_heads % s.num_kv_heads == 0);
  assert(reinterpret_cast<std::uintptr_t>(table) % 4 == 0);
  assert(!pos || s.rows == 1);
  assert(pos || s.rows <= s.max_len);
  const auto packable = [&](const void* ptr) { return aligned_to(ptr, 16); };
  if (s.head_dim % 16 == 0 && s.qkv_stride % 8 == 0 && packable(qkv) && packable(table) && packable(k_cache) &&
      packable(v_cache)) {
    constexpr int kThreads = 256;
    const std::int64_t units = static_cast<std::int64_t>(pos ? 1 : s.rows) *
                               ((s.num_heads + s.num_kv_heads) * (s.head_dim / 16) + s.num_kv_heads * s.head_dim / 8);
    // Up to 8 blocks per SM's worth of a 132-SM GPU; a bigger prefill loops (grid-stride).
    const int blocks = static_cast<int>(std::min<std::int64_t>((units + kThreads - 1) / kThreads, 1056));
    launch(rope_kv_packed_kernel<T>, dim3(blocks), dim3(kThreads), 0, stream, qkv, s,
           reinterpret_cast<const std::uint32_t*>(table), pos, k_cache, v_cache);
    return;
  }
  // One thread per rotation of a token (Llama-2-7B: (32 + 32) x 64 = 4096, 32 blocks), at most 32
  // blocks per token (prefill has rows tokens to spread over the GPU anyway).
  constexpr int kThreads = 128;
  const int rotations = (s.num_heads + s.num_kv_heads) * (s.head_dim / 2);
  const int slices = std::min(32, std::max(1, (rotations + kThreads - 1) / kThreads));
  launch(rope_kv_kernel<T>, dim3(s.rows, slices), dim3(kThreads), 0, stream, qkv, s,
         reinterpret_cast<const std::uint32_t*>(table), pos, k_cache, v_cache);
}

template std::vector<__half> make_rope_table<__half>(int, int, double);
template std::vector<__nv_bfloat16> make_rope_table<__nv_bfloat16>(int, int, double);
template void rope_kv_append<__half>(__half*, const rope_kv_shape&, const __half*, const int*, __half*, __half*,
                                     cudaStream_t);
template void rope_kv_append<__nv_bfloat16>(__nv_bfloat16*, const rope_kv_shape&, const __nv_bfloat16*, const int*,
                                            __nv_bfloat16*, __nv_bfloat16*, cudaStream_t);

}  // namespace cudabench::kernels::llm_decode
