// See relu_backward.cuh. Works on the raw 16-bit patterns: both fp16 and bf16 are > 0 exactly
// when the sign bit is clear and the value is not +-0 (NaN outputs never occur after a ReLU
// epilogue with finite inputs, and a NaN gradient is kept for the overflow check to find).
#include "kernels/train_step/relu_backward.cuh"

#include <cstdint>

#include "cudabench/gpu/cuda_check.hpp"

namespace cudabench::kernels::train_step {
namespace {

__global__ void relu_mask_kernel(std::uint16_t* __restrict__ dx, const std::uint16_t* __restrict__ out, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const std::uint16_t o = out[i];
    const bool positive = (o & 0x8000u) == 0 && (o & 0x7fffu) != 0;
    if (!positive) dx[i] = 0;
  }
}

}  // namespace

void relu_backward_inplace(void* dx, const void* out, std::size_t n, dtype /*kind*/, cudaStream_t stream) {
  if (n == 0) return;
  constexpr int threads = 256;
  const std::size_t needed = (n + threads - 1) / threads;
  const unsigned blocks = static_cast<unsigned>(needed < 65536 ? needed : 65536);
  relu_mask_kernel<<<blocks, threads, 0, stream>>>(static_cast<std::uint16_t*>(dx),
                                                   static_cast<const std::uint16_t*>(out), n);
  CUDABENCH_CHECK_LAUNCH();
}

}  // namespace cudabench::kernels::train_step
