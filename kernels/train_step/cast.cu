// See cast.cuh. Grid-stride loop, one element per thread per step.
#include "kernels/train_step/cast.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "cudabench/gpu/cuda_check.hpp"
#include "kernels/common/convert.cuh"

namespace cudabench::kernels::train_step {
namespace {

template <class T>
__global__ void cast_kernel(T* __restrict__ dst, const float* __restrict__ src, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    store_float(dst + i, src[i]);
}

}  // namespace

void cast_from_float(void* dst, const float* src, std::size_t n, dtype kind, cudaStream_t stream) {
  if (n == 0) return;
  constexpr int threads = 256;
  const std::size_t needed = (n + threads - 1) / threads;
  const unsigned blocks = static_cast<unsigned>(needed < 65536 ? needed : 65536);
  if (kind == dtype::fp16) cast_kernel<<<blocks, threads, 0, stream>>>(static_cast<__half*>(dst), src, n);
  else cast_kernel<<<blocks, threads, 0, stream>>>(static_cast<__nv_bfloat16*>(dst), src, n);
  CUDABENCH_CHECK_LAUNCH();
}

}  // namespace cudabench::kernels::train_step
