// See train_ops.cuh. Grid-stride loops; LayerNorm one warp per row as layernorm.cu.
#include "kernels/transformer_memory/train_ops.cuh"

#include <algorithm>
#include <stdexcept>

#include <cuda_fp16.h>

#include "cudabench/gpu/cuda_check.hpp"
#include "kernels/common/convert.cuh"
#include "kernels/common/reduce.cuh"
#include "kernels/transformer_memory/dropout_rng.hpp"

namespace cudabench::kernels::transformer_memory {
namespace {

constexpr int threads = 256;
constexpr int warps_per_block = 8;

__device__ inline float dropped(float y, std::int64_t i, const dropout_params& d) {
  if (!d.mask) return y;
  const bool keep = transformer::dropout_keep(d.seed, d.index_offset + static_cast<std::uint64_t>(i), d.threshold);
  d.mask[i] = keep ? 1 : 0;
  return keep ? y * d.scale : 0.f;
}

template <class T>
__global__ void dropout_kernel(const T* __restrict__ y, T* __restrict__ out, std::int64_t n, dropout_params d) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    store_float(out + i, dropped(to_float(y[i]), i, d));
}

template <class T>
__global__ void dropout_add_kernel(const T* __restrict__ x, const T* __restrict__ y, T* __restrict__ sum,
                                   std::int64_t n, dropout_params d) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    store_float(sum + i, to_float(x[i]) + dropped(to_float(y[i]), i, d));
}

// layernorm.cu's layernorm_kernel, out of place and keeping mean and rstd for the backward: the
// same arithmetic in the same order. Left a copy, not one shared row function: the in-place
// kernel's loads and stores alias (one __restrict__ pointer), this one's do not, and merging them
// wants an H200 A/B proving outputs and timings unchanged.
template <class T>
__global__ void layernorm_train_kernel(const T* __restrict__ in, T* __restrict__ out, const T* __restrict__ gamma,
                                       const T* __restrict__ beta, float* __restrict__ mean_out,
                                       float* __restrict__ rstd_out, std::int64_t rows, int cols, float eps) {
  const int lane = threadIdx.x % 32;
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * warps_per_block + threadIdx.x / 32;
  if (row >= rows) return;  // whole warp exits together
  const T* p = in + row * cols;
  T* q = out + row * cols;
  float sum = 0.f;
  for (int c = lane; c < cols; c += 32) sum += to_float(p[c]);
  const float mean = warp_sum(sum) / cols;
  float sq = 0.f;
  for (int c = lane; c < cols; c += 32) {
    const float dv = to_float(p[c]) - mean;
    sq += dv * dv;
  }
  const float rstd = 1.f / sqrtf(warp_sum(sq) / cols + eps);
  for (int c = lane; c < cols; c += 32)
    store_float(q + c, (to_float(p[c]) - mean) * rstd * to_float(gamma[c]) + to_float(beta[c]));
  if (lane == 0) {
    mean_out[row] = mean;
    rstd_out[row] = rstd;
  }
}

unsigned blocks_for(std::int64_t n) {
  return static_cast<unsigned>(std::min<std::int64_t>((n + threads - 1) / threads, 65536));
}

}  // namespace

void dropout(const void* y, void* out, std::int64_t n, const dropout_params& d, dtype type, cudaStream_t stream) {
  if (n <= 0) return;
  if (type == dtype::fp16)
    dropout_kernel<__half>
        <<<blocks_for(n), threads, 0, stream>>>(static_cast<const __half*>(y), static_cast<__half*>(out), n, d);
  else
    dropout_kernel<float>
        <<<blocks_for(n), threads, 0, stream>>>(static_cast<const float*>(y), static_cast<float*>(out), n, d);
  CUDABENCH_CHECK_LAUNCH();
}

void dropout_add(const void* x, const void* y, void* sum, std::int64_t n, const dropout_params& d, dtype type,
                 cudaStream_t stream) {
  if (n <= 0) return;
  if (type == dtype::fp16)
    dropout_add_kernel<__half><<<blocks_for(n), threads, 0, stream>>>(
        static_cast<const __half*>(x), static_cast<const __half*>(y), static_cast<__half*>(sum), n, d);
  else
    dropout_add_kernel<float><<<blocks_for(n), threads, 0, stream>>>(
        static_cast<const float*>(x), static_cast<const float*>(y), static_cast<float*>(sum), n, d);
  CUDABENCH_CHECK_LAUNCH();
}

void layernorm_train(const void* in, void* out, const void* gamma, const void* beta, float* mean, float* rstd,
                     std::int64_t rows, int cols, float eps, dtype type, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) throw std::invalid_argument("layernorm_train: empty shape");
  const std::int64_t blocks = (rows + warps_per_block - 1) / warps_per_block;
  if (blocks > 0x7fffffff) throw std::invalid_argument("layernorm_train: too many rows");
  if (type == dtype::fp16)
    layernorm_train_kernel<__half><<<static_cast<unsigned>(blocks), warps_per_block * 32, 0, stream>>>(
        static_cast<const __half*>(in), static_cast<__half*>(out), static_cast<const __half*>(gamma),
        static_cast<const __half*>(beta), mean, rstd, rows, cols, eps);
  else
    layernorm_train_kernel<float><<<static_cast<unsigned>(blocks), warps_per_block * 32, 0, stream>>>(
        static_cast<const float*>(in), static_cast<float*>(out), static_cast<const float*>(gamma),
        static_cast<const float*>(beta), mean, rstd, rows, cols, eps);
  CUDABENCH_CHECK_LAUNCH();
}

}  // namespace cudabench::kernels::transformer_memory
