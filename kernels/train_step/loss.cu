// See loss.cuh. Grid-stride loop; warp-shuffle + shared-memory block reduction of the loss.
#include "kernels/train_step/loss.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "cudabench/gpu/cuda_check.hpp"
#include "kernels/common/convert.cuh"
#include "kernels/common/reduce.cuh"

namespace cudabench::kernels::train_step {
namespace {

constexpr int threads = 256;

template <class T>
__global__ void __launch_bounds__(threads)
    mse_kernel(const T* __restrict__ y, const float* __restrict__ t, T* __restrict__ dy, std::size_t n,
               const float* __restrict__ scale, float* __restrict__ loss_sum) {
  const float inv_n = 1.f / static_cast<float>(n);
  const float g = *scale * 2.f * inv_n;
  float local = 0.f;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const float d = to_float(y[i]) - t[i];
    local += d * d;
    store_float(dy + i, g * d);
  }
  local = warp_sum(local);
  // Thread 0 adds the warp sums in order (not block_sum's second butterfly): the loss's numbers.
  __shared__ float warp_sums[threads / 32];
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = local;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.f;
    for (int w = 0; w < threads / 32; ++w) s += warp_sums[w];
    atomicAdd(loss_sum, s * inv_n);
  }
}

}  // namespace

void mse_loss_backward(const void* y, const float* target, void* dy, std::size_t n, const float* scale, float* loss_sum,
                       dtype kind, cudaStream_t stream) {
  if (n == 0) return;
  const std::size_t needed = (n + threads - 1) / threads;
  const unsigned blocks = static_cast<unsigned>(needed < 4096 ? needed : 4096);
  if (kind == dtype::fp16)
    mse_kernel<<<blocks, threads, 0, stream>>>(static_cast<const __half*>(y), target, static_cast<__half*>(dy), n,
                                               scale, loss_sum);
  else
    mse_kernel<<<blocks, threads, 0, stream>>>(static_cast<const __nv_bfloat16*>(y), target,
                                               static_cast<__nv_bfloat16*>(dy), n, scale, loss_sum);
  CUDABENCH_CHECK_LAUNCH();
}

}  // namespace cudabench::kernels::train_step
