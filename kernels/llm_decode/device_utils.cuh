// Device helpers shared by the kernels in kernels/llm_decode/ (include from .cu files only):
// packed loads of 2/4/8 elements; warp and block reductions come
// from kernels/common/reduce.cuh, the fp16/bf16 <-> fp32 conversions from kernels/common/convert.cuh.
// Every kernel keeps its arithmetic in fp32 and rounds to the storage type where transformers'
// fp16/bf16 Llama rounds (after each projection, norm and residual add), so outputs track it.
#pragma once
#include <cstddef>
#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "kernels/common/convert.cuh"
#include "kernels/common/reduce.cuh"

namespace cudabench::kernels::llm_decode {

// Two packed 16-bit values -> two floats.
__device__ __forceinline__ float2 pair_to_float2(std::uint32_t bits, __half) {
  __half2 h;
  memcpy(&h, &bits, 4);
  return __half22float2(h);
}
__device__ __forceinline__ float2 pair_to_float2(std::uint32_t bits, __nv_bfloat16) {
  // bf16 is the top half of an fp32: widening is two shifts, no conversion unit needed.
  return make_float2(__uint_as_float(bits << 16), __uint_as_float(bits & 0xffff0000u));
}

// `L` is the load type: uint4 (8 elements), uint2 (4), unsigned (2) or unsigned short (1).
template <class L>
struct pack_words;
template <>
struct pack_words<uint4> {
  static constexpr int words = 4;
};
template <>
struct pack_words<uint2> {
  static constexpr int words = 2;
};
template <>
struct pack_words<unsigned> {
  static constexpr int words = 1;
};

// Dot product of two packs of 16-bit elements, accumulated in fp32.
template <class T, class L>
__device__ __forceinline__ float dot_pack(const L& a, const L& b) {
  constexpr int n = pack_words<L>::words;
  std::uint32_t wa[n], wb[n];
  memcpy(wa, &a, sizeof(L));
  memcpy(wb, &b, sizeof(L));
  float acc = 0.0f;
#pragma unroll
  for (int i = 0; i < n; ++i) {
    const float2 fa = pair_to_float2(wa[i], T{}), fb = pair_to_float2(wb[i], T{});
    acc = fmaf(fa.x, fb.x, acc);
    acc = fmaf(fa.y, fb.y, acc);
  }
  return acc;
}
template <>
__device__ __forceinline__ float dot_pack<__half, unsigned short>(const unsigned short& a, const unsigned short& b) {
  return to_float(__ushort_as_half(a)) * to_float(__ushort_as_half(b));
}
template <>
__device__ __forceinline__ float dot_pack<__nv_bfloat16, unsigned short>(const unsigned short& a,
                                                                         const unsigned short& b) {
  return to_float(__ushort_as_bfloat16(a)) * to_float(__ushort_as_bfloat16(b));
}

__device__ __forceinline__ float silu(float x) { return x / (1.0f + __expf(-x)); }

// Host side, for the launchers that pick a pack width: is `p` aligned to `bytes`?
inline bool aligned_to(const void* p, std::size_t bytes) { return reinterpret_cast<std::uintptr_t>(p) % bytes == 0; }

}  // namespace cudabench::kernels::llm_decode
