// See rmsnorm.cuh. One block per row; the sum of squares is a block reduction in fp32. The row is
// read twice (sum, then scale); the second read hits L1/L2.
#include "kernels/llm_decode/rmsnorm.cuh"

#include <cassert>

#include "cudabench/cuda_check.hpp"
#include "kernels/common/reduce.cuh"
#include "kernels/llm_decode/device_utils.cuh"

namespace cudabench::kernels::llm {
namespace {

constexpr int kThreads = 256;

template <class T>
__global__ void __launch_bounds__(kThreads)
    residual_rmsnorm_kernel(T* h, const T* delta, const T* weight, float eps, int hidden, T* out) {
  __shared__ float scratch[32];
  const std::size_t base = static_cast<std::size_t>(blockIdx.x) * hidden;
  float ss = 0.0f;
  for (int i = threadIdx.x; i < hidden; i += kThreads) {
    float v = to_float(h[base + i]);
    if (delta) {
      const T sum = from_float<T>(v + to_float(delta[base + i]));
      h[base + i] = sum;
      v = to_float(sum);
    }
    ss = fmaf(v, v, ss);
  }
  // block_sum's barriers also order each thread's h writes before the re-read below (every
  // thread re-reads only the elements it wrote itself, so this is belt and braces).
  const float rstd = rsqrtf(block_sum(ss, scratch) / static_cast<float>(hidden) + eps);
  for (int i = threadIdx.x; i < hidden; i += kThreads)
    out[base + i] = from_float<T>(to_float(weight[i]) * round_to<T>(to_float(h[base + i]) * rstd));
}

}  // namespace

template <class T>
void residual_rmsnorm(T* h, const T* delta, const T* weight, float eps, int rows, int hidden, T* out,
                      cudaStream_t stream) {
  assert(h && weight && out && rows > 0 && hidden > 0);
  residual_rmsnorm_kernel<T><<<rows, kThreads, 0, stream>>>(h, delta, weight, eps, hidden, out);
  CUDABENCH_CHECK_LAUNCH();
}

template void residual_rmsnorm<__half>(__half*, const __half*, const __half*, float, int, int, __half*, cudaStream_t);
template void residual_rmsnorm<__nv_bfloat16>(__nv_bfloat16*, const __nv_bfloat16*, const __nv_bfloat16*, float, int,
                                              int, __nv_bfloat16*, cudaStream_t);

}  // namespace cudabench::kernels::llm
