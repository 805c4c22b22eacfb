// fp32 <-> fp16/bf16/fp8 conversions shared by every kind's kernels (include from .cu files only).
//
// One set of names, so a kernel reads the same whatever its kind:
//   to_float(x)          widen a stored value to fp32 (exact for every type here)
//   from_float<T>(v)     round an fp32 value to the storage type T (round to nearest even;
//                        fp8 e4m3 through its constructor, which saturates to the finite range)
//   store_float(p, v)    *p = from_float<T>(v), T deduced from the pointer
//   round_to<T>(v)       to_float(from_float<T>(v)): what v becomes once stored as T
// The intrinsics and rounding modes are part of the numbers every golden test compares: change
// one here and every caller's results move.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

namespace cudabench::kernels {

__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }
__device__ __forceinline__ float to_float(__nv_fp8_e4m3 v) { return static_cast<float>(v); }

template <class T>
__device__ __forceinline__ T from_float(float v);
template <>
__device__ __forceinline__ float from_float<float>(float v) {
  return v;
}
template <>
__device__ __forceinline__ __half from_float<__half>(float v) {
  return __float2half_rn(v);
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}
template <>
__device__ __forceinline__ __nv_fp8_e4m3 from_float<__nv_fp8_e4m3>(float v) {
  return __nv_fp8_e4m3(v);
}

template <class T>
__device__ __forceinline__ void store_float(T* p, float v) {
  *p = from_float<T>(v);
}

template <class T>
__device__ __forceinline__ float round_to(float v) {
  return to_float(from_float<T>(v));
}

}  // namespace cudabench::kernels
