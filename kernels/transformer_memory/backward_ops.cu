// See backward_ops.cuh. Grid-stride loops; LayerNorm's dx one warp per row as train_ops.cu; the
// column reductions one thread per column over a chunk of rows (coalesced across the warp).
#include "kernels/transformer_memory/backward_ops.cuh"

#include <algorithm>
#include <stdexcept>

#include "cudabench/gpu/cuda_check.hpp"
#include "kernels/common/reduce.cuh"

namespace cudabench::kernels::transformer_memory {
namespace {

constexpr int threads = 256;
constexpr int warps_per_block = 8;
constexpr int rows_per_chunk = 128;  // column reductions: rows one thread sums before its atomicAdd

unsigned blocks_for(std::int64_t n) {
  return static_cast<unsigned>(std::min<std::int64_t>((n + threads - 1) / threads, 65536));
}

__global__ void layernorm_dx_kernel(const float* __restrict__ in, const float* __restrict__ dy,
                                    const float* __restrict__ gamma, const float* __restrict__ mean,
                                    const float* __restrict__ rstd, float* __restrict__ dx, std::int64_t rows,
                                    int cols) {
  const int lane = threadIdx.x % 32;
  const std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * warps_per_block + threadIdx.x / 32;
  if (row >= rows) return;  // whole warp exits together
  const float* x = in + row * cols;
  const float* g = dy + row * cols;
  const float mu = mean[row], rs = rstd[row];
  float s1 = 0.f, s2 = 0.f;
  for (int c = lane; c < cols; c += 32) {
    const float dyg = g[c] * gamma[c];
    s1 += dyg;
    s2 += dyg * (x[c] - mu) * rs;
  }
  const float m1 = warp_sum(s1) / cols, m2 = warp_sum(s2) / cols;
  for (int c = lane; c < cols; c += 32) dx[row * cols + c] = rs * (g[c] * gamma[c] - m1 - (x[c] - mu) * rs * m2);
}

// grid (ceil(cols / 256), ceil(rows / rows_per_chunk)).
__global__ void layernorm_dparams_kernel(const float* __restrict__ in, const float* __restrict__ dy,
                                         const float* __restrict__ mean, const float* __restrict__ rstd,
                                         float* __restrict__ dgamma, float* __restrict__ dbeta, std::int64_t rows,
                                         int cols) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  const std::int64_t r0 = static_cast<std::int64_t>(blockIdx.y) * rows_per_chunk;
  const std::int64_t r1 = min(rows, r0 + rows_per_chunk);
  float sg = 0.f, sb = 0.f;
  for (std::int64_t r = r0; r < r1; ++r) {
    const float g = dy[r * cols + c];
    sg += g * (in[r * cols + c] - mean[r]) * rstd[r];
    sb += g;
  }
  atomicAdd(dgamma + c, sg);
  atomicAdd(dbeta + c, sb);
}

__global__ void column_sums_kernel(const float* __restrict__ dy, std::int64_t rows, int cols, float* __restrict__ out) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  if (c >= cols) return;
  const std::int64_t r0 = static_cast<std::int64_t>(blockIdx.y) * rows_per_chunk;
  const std::int64_t r1 = min(rows, r0 + rows_per_chunk);
  float s = 0.f;
  for (std::int64_t r = r0; r < r1; ++r) s += dy[r * cols + c];
  atomicAdd(out + c, s);
}

__global__ void dropout_backward_kernel(const float* __restrict__ dy, const std::uint8_t* __restrict__ mask,
                                        float scale, float* __restrict__ dx, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x)
    dx[i] = mask[i] ? dy[i] * scale : 0.f;
}

__global__ void relu_dropout_backward_kernel(float* __restrict__ dh, const float* __restrict__ relu_out,
                                             const std::uint8_t* __restrict__ mask, float scale, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * static_cast<std::int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::int64_t>(gridDim.x) * blockDim.x) {
    const float g = mask ? (mask[i] ? dh[i] * scale : 0.f) : dh[i];
    dh[i] = relu_out[i] > 0.f ? g : 0.f;
  }
}

dim3 column_grid(std::int64_t rows, int cols) {
  const std::int64_t chunks = (rows + rows_per_chunk - 1) / rows_per_chunk;
  if (chunks > 65535) throw std::invalid_argument("column reduction: too many rows");
  return dim3(static_cast<unsigned>((cols + threads - 1) / threads), static_cast<unsigned>(chunks));
}

}  // namespace

void layernorm_backward(const float* in, const float* dy, const float* gamma, const float* mean, const float* rstd,
                        float* dx, float* dgamma, float* dbeta, std::int64_t rows, int cols, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) throw std::invalid_argument("layernorm_backward: empty shape");
  const std::int64_t blocks = (rows + warps_per_block - 1) / warps_per_block;
  if (blocks > 0x7fffffff) throw std::invalid_argument("layernorm_backward: too many rows");
  layernorm_dx_kernel<<<static_cast<unsigned>(blocks), warps_per_block * 32, 0, stream>>>(in, dy, gamma, mean, rstd, dx,
                                                                                          rows, cols);
  CUDABENCH_CHECK_LAUNCH();
  layernorm_dparams_kernel<<<column_grid(rows, cols), threads, 0, stream>>>(in, dy, mean, rstd, dgamma, dbeta, rows,
                                                                            cols);
  CUDABENCH_CHECK_LAUNCH();
}

void dropout_backward(const float* dy, const std::uint8_t* mask, float scale, float* dx, std::int64_t n,
                      cudaStream_t stream) {
  if (n <= 0) return;
  if (!mask) {
    if (dx != dy) CUDABENCH_CHECK_CUDA(cudaMemcpyAsync(dx, dy, n * sizeof(float), cudaMemcpyDeviceToDevice, stream));
    return;
  }
  dropout_backward_kernel<<<blocks_for(n), threads, 0, stream>>>(dy, mask, scale, dx, n);
  CUDABENCH_CHECK_LAUNCH();
}

void relu_dropout_backward(float* dh, const float* relu_out, const std::uint8_t* mask, float scale, std::int64_t n,
                           cudaStream_t stream) {
  if (n <= 0) return;
  relu_dropout_backward_kernel<<<blocks_for(n), threads, 0, stream>>>(dh, relu_out, mask, scale, n);
  CUDABENCH_CHECK_LAUNCH();
}

void column_sums(const float* dy, std::int64_t rows, int cols, float* out, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;
  column_sums_kernel<<<column_grid(rows, cols), threads, 0, stream>>>(dy, rows, cols, out);
  CUDABENCH_CHECK_LAUNCH();
}

}  // namespace cudabench::kernels::transformer_memory
