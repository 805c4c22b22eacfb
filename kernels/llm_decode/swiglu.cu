// See swiglu.cuh. Grid-stride over rows x n elements; fp32 math, transformers' rounding points.
#include "kernels/llm_decode/swiglu.cuh"

#include <cassert>

#include "cudabench/cuda_check.hpp"
#include "kernels/llm_decode/device_utils.cuh"

namespace cudabench::kernels::llm {
namespace {

template <class T>
__global__ void swiglu_kernel(const T* gu, int rows, int n, T* act) {
  const std::size_t total = static_cast<std::size_t>(rows) * n;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::size_t t = i / n, c = i % n;
    const float g = to_float(gu[t * 2 * n + c]), u = to_float(gu[t * 2 * n + n + c]);
    act[i] = from_float<T>(round_to<T>(silu(g)) * u);
  }
}

}  // namespace

template <class T>
void swiglu(const T* gu, int rows, int n, T* act, cudaStream_t stream) {
  assert(gu && act && rows > 0 && n > 0);
  const std::size_t total = static_cast<std::size_t>(rows) * n;
  const std::size_t blocks = (total + 255) / 256;
  swiglu_kernel<T><<<static_cast<unsigned>(blocks < 4096 ? blocks : 4096), 256, 0, stream>>>(gu, rows, n, act);
  CUDABENCH_CHECK_LAUNCH();
}

template void swiglu<__half>(const __half*, int, int, __half*, cudaStream_t);
template void swiglu<__nv_bfloat16>(const __nv_bfloat16*, int, int, __nv_bfloat16*, cudaStream_t);

}  // namespace cudabench::kernels::llm
