// See rmsnorm.cuh. One block per row, 16-byte packs where the row allows; the sum of squares is a block reduction in
// fp32. The row is read twice (sum, then scale); the second read hits L1/L2.
#include "kernels/llm_decode/rmsnorm.cuh"

#include <cassert>
#include <cstring>

#include "cudabench/gpu/cuda_check.hpp"
#include "kernels/common/reduce.cuh"
#include "kernels/llm_decode/device_utils.cuh"

namespace cudabench::kernels::llm_decode {
namespace {

constexpr int kThreads = 256;

// `L` is the pack each thread moves at a time: uint4 (8 elements) when the row allows it, else
// one element. Packed, a 4096-wide row is two loads per thread instead of sixteen dependent ones
// (the prefill's 65 launches took 14 us each at 128 rows with element loads).
template <class T, class L>
__global__ void __launch_bounds__(kThreads)
    residual_rmsnorm_kernel(T* h, const T* delta, const T* weight, float eps, int hidden, T* out) {
  constexpr int kPer = static_cast<int>(sizeof(L) / sizeof(T));
  __shared__ float scratch[32];
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * hidden;
  L* hv = reinterpret_cast<L*>(h + base);
  const L* dv = delta ? reinterpret_cast<const L*>(delta + base) : nullptr;
  const L* wv = reinterpret_cast<const L*>(weight);
  L* ov = reinterpret_cast<L*>(out + base);
  const int packs = hidden / kPer;
  float ss = 0.0f;
  for (int i = threadIdx.x; i < packs; i += kThreads) {
    T x[kPer];
    const L xp = hv[i];
    memcpy(x, &xp, sizeof(L));
    if (dv) {
      T d[kPer];
      const L dp = dv[i];
      memcpy(d, &dp, sizeof(L));
#pragma unroll
      for (int e = 0; e < kPer; ++e) x[e] = from_float<T>(to_float(x[e]) + to_float(d[e]));
      L sp;
      memcpy(&sp, x, sizeof(L));
      hv[i] = sp;
    }
#pragma unroll
    for (int e = 0; e < kPer; ++e) {
      const float v = to_float(x[e]);
      ss = fmaf(v, v, ss);
    }
  }
  // block_sum's barriers also order each thread's h writes before the re-read below (every
  // thread re-reads only the packs it wrote itself, so this is belt and braces).
  const float rstd = rsqrtf(block_sum(ss, scratch) / static_cast<float>(hidden) + eps);
  for (int i = threadIdx.x; i < packs; i += kThreads) {
    T x[kPer], w[kPer], o[kPer];
    const L xp = hv[i], wp = wv[i];
    memcpy(x, &xp, sizeof(L));
    memcpy(w, &wp, sizeof(L));
#pragma unroll
    for (int e = 0; e < kPer; ++e) o[e] = from_float<T>(to_float(w[e]) * round_to<T>(to_float(x[e]) * rstd));
    L op;
    memcpy(&op, o, sizeof(L));
    ov[i] = op;
  }
}

}  // namespace

template <class T>
void residual_rmsnorm(T* h, const T* delta, const T* weight, float eps, int rows, int hidden, T* out,
                      cudaStream_t stream) {
  assert(h && weight && out && rows > 0 && hidden > 0);
  const bool packed = hidden % 8 == 0 && aligned_to(h, 16) && aligned_to(weight, 16) && aligned_to(out, 16) &&
                      (!delta || aligned_to(delta, 16));
  if (packed) {
    residual_rmsnorm_kernel<T, uint4><<<rows, kThreads, 0, stream>>>(h, delta, weight, eps, hidden, out);
  } else {
    residual_rmsnorm_kernel<T, T><<<rows, kThreads, 0, stream>>>(h, delta, weight, eps, hidden, out);
  }
  CUDABENCH_CHECK_LAUNCH();
}

template void residual_rmsnorm<__half>(__half*, const __half*, const __half*, float, int, int, __half*, cudaStream_t);
template void residual_rmsnorm<__nv_bfloat16>(__nv_bfloat16*, const __nv_bfloat16*, const __nv_bfloat16*, float, int,
                                              int, __nv_bfloat16*, cudaStream_t);

}  // namespace cudabench::kernels::llm_decode
