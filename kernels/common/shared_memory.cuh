// Opting a kernel in to more dynamic shared memory than a launch gets by default.
//
// The default per-block limit (48 KiB) covers static and dynamic shared memory together, so the
// check is on their sum: a kernel with a static __shared__ array (a block reduction's scratch)
// needs the opt-in below 48 KiB of dynamic memory. Checking the dynamic size alone missed GEMV
// variant 6 with the RMSNorm prologue at Llama-2-7B's k = 4096: 48 KiB dynamic plus 128 bytes of
// scratch, a launch the GPU rejects as an invalid argument.
#pragma once
#include <cstddef>

#include <cuda_runtime.h>

#include "cudabench/gpu/cuda_check.hpp"

namespace cudabench::kernels {

constexpr std::size_t kDefaultSharedMemoryPerBlock = 48 * 1024;

template <class... P>
void opt_in_shared_memory(void (*kernel)(P...), std::size_t dynamic_bytes) {
  cudaFuncAttributes attr{};
  CUDABENCH_CHECK_CUDA(cudaFuncGetAttributes(&attr, kernel));
  if (attr.sharedSizeBytes + dynamic_bytes <= kDefaultSharedMemoryPerBlock) return;
  CUDABENCH_CHECK_CUDA(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(dynamic_bytes)));
}

}  // namespace cudabench::kernels
