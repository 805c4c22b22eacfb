// Warp and block reductions shared by the kernels (include from .cu files only).
//
// Every warp reduction is the same xor butterfly (offsets 16, 8, 4, 2, 1), so all 32 lanes end
// with the result and every lane combines the same pairs in the same order: lane 0 sees the
// pairing a shfl_down tree would give it, which is why call sites that read only lane 0 use these
// too. The order is part of the numbers (fp32 sums are not associative): change it here and the
// results of every caller move.
#pragma once
#include <cuda_runtime.h>

namespace cudabench::kernels {

constexpr unsigned kFullWarp = 0xffffffffu;

// Sum over the 32 lanes (float or double); every lane gets it.
template <class T>
__device__ __forceinline__ T warp_sum(T v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(kFullWarp, v, o);
  return v;
}

// Maximum over the 32 lanes (fmaxf: a NaN loses to a number); every lane gets it.
__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(kFullWarp, v, o));
  return v;
}

// The best (value, index) pair over the 32 lanes; every lane gets it. `better(ov, oi, bv, bi)`
// says whether the other lane's pair beats the one held; ties are the caller's to break (by index,
// say), and since both lanes of a pair see the same two candidates, all lanes agree.
template <class Better>
__device__ __forceinline__ void warp_best(float& bv, int& bi, Better better) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    const float ov = __shfl_xor_sync(kFullWarp, bv, o);
    const int oi = __shfl_xor_sync(kFullWarp, bi, o);
    if (better(ov, oi, bv, bi)) bv = ov, bi = oi;
  }
}

// Sum over the block; every thread gets the result: each warp's sum, then the sum of those (as a
// warp_sum over lanes 0..warps-1, the rest 0). `scratch` holds >= 32 floats. Contains
// __syncthreads(): all threads of the block must call it.
__device__ __forceinline__ float block_sum(float v, float* scratch) {
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, warps = (blockDim.x + 31) / 32;
  v = warp_sum(v);
  __syncthreads();  // scratch may still be read by a previous call
  if (lane == 0) scratch[warp] = v;
  __syncthreads();
  float t = lane < warps ? scratch[lane] : 0.0f;
  return warp_sum(t);
}

}  // namespace cudabench::kernels
