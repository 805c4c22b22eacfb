// See layernorm.cuh. 8 warps per block, one row per warp.
#include "kernels/transformer_memory/layernorm.cuh"

#include <stdexcept>

#include <cuda_fp16.h>

#include "cudabench/gpu/cuda_check.hpp"
#include "kernels/common/convert.cuh"
#include "kernels/common/reduce.cuh"

namespace cudabench::kernels::transformer_memory {
namespace {

constexpr int warps_per_block = 8;

template <class T>
__global__ void layernorm_kernel(T* __restrict__ x, const T* __restrict__ gamma, const T* __restrict__ beta,
                                 std::int64_t rows, int cols, float eps) {
  const int lane = threadIdx.x % 32;
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * warps_per_block + threadIdx.x / 32;
  if (row >= rows) return;  // whole warp exits together
  T* p = x + row * cols;
  float sum = 0.f;
  for (int c = lane; c < cols; c += 32) sum += to_float(p[c]);
  const float mean = warp_sum(sum) / cols;
  float sq = 0.f;
  for (int c = lane; c < cols; c += 32) {
    const float d = to_float(p[c]) - mean;
    sq += d * d;
  }
  const float rstd = 1.f / sqrtf(warp_sum(sq) / cols + eps);
  for (int c = lane; c < cols; c += 32)
    store_float(p + c, (to_float(p[c]) - mean) * rstd * to_float(gamma[c]) + to_float(beta[c]));
}

}  // namespace

void layernorm_inplace(void* x, const void* gamma, const void* beta, std::int64_t rows, int cols, float eps, dtype type,
                       cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) throw std::invalid_argument("layernorm: empty shape");
  const std::int64_t blocks = (rows + warps_per_block - 1) / warps_per_block;
  if (blocks > 0x7fffffff) throw std::invalid_argument("layernorm: too many rows");
  if (type == dtype::fp16)
    layernorm_kernel<__half><<<static_cast<unsigned>(blocks), warps_per_block * 32, 0, stream>>>(
        static_cast<__half*>(x), static_cast<const __half*>(gamma), static_cast<const __half*>(beta), rows, cols, eps);
  else
    layernorm_kernel<float><<<static_cast<unsigned>(blocks), warps_per_block * 32, 0, stream>>>(
        static_cast<float*>(x), static_cast<const float*>(gamma), static_cast<const float*>(beta), rows, cols, eps);
  CUDABENCH_CHECK_LAUNCH();
}

}  // namespace cudabench::kernels::transformer_memory
