// See backward_ops.cuh. Grid-stride loops; LayerNorm's dx one warp per row as train_ops.cu; the
// column reductions one block per 32 columns (below).
#include "kernels/transformer_memory/backward_ops.cuh"

#include <algorithm>
#include <stdexcept>

#include "cudabench/gpu/cuda_check.hpp"
#include "kernels/common/reduce.cuh"

namespace cudabench::kernels::transformer_memory {
namespace {

constexpr int threads = 256;
constexpr int warps_per_block = 8;

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

// Column sums (the LayerNorm's dgamma/dbeta and the linear layers' bias gradients), deterministic:
// no atomics, every sum in one fixed order, so these sums agree bit for bit between runs.
// grid (ceil(cols / 32)), block (32, 32): thread (x, y) sums rows y, y + 32, ... of column x of its
// tile, then row lane 0 adds the 32 partial sums in order and adds the total onto the output (the
// gradients accumulate over the calls of one backward, which run in stream order).
constexpr int col_tile = 32;
constexpr int row_lanes = 32;

__global__ void __launch_bounds__(col_tile* row_lanes)
    layernorm_dparams_kernel(const float* __restrict__ in, const float* __restrict__ dy, const float* __restrict__ mean,
                             const float* __restrict__ rstd, float* __restrict__ dgamma, float* __restrict__ dbeta,
                             std::int64_t rows, int cols) {
  __shared__ float part_g[row_lanes][col_tile + 1];
  __shared__ float part_b[row_lanes][col_tile + 1];
  const int c = blockIdx.x * col_tile + threadIdx.x;
  float sg = 0.f, sb = 0.f;
  if (c < cols)
    for (std::int64_t r = threadIdx.y; r < rows; r += row_lanes) {
      const float g = dy[r * cols + c];
      sg += g * (in[r * cols + c] - mean[r]) * rstd[r];
      sb += g;
    }
  part_g[threadIdx.y][threadIdx.x] = sg;
  part_b[threadIdx.y][threadIdx.x] = sb;
  __syncthreads();
  if (threadIdx.y == 0 && c < cols) {
    float tg = 0.f, tb = 0.f;
    for (int k = 0; k < row_lanes; ++k) {
      tg += part_g[k][threadIdx.x];
      tb += part_b[k][threadIdx.x];
    }
    dgamma[c] += tg;
    dbeta[c] += tb;
  }
}

__global__ void __launch_bounds__(col_tile* row_lanes)
    column_sums_kernel(const float* __restrict__ dy, std::int64_t rows, int cols, float* __restrict__ out) {
  __shared__ float part[row_lanes][col_tile + 1];
  const int c = blockIdx.x * col_tile + threadIdx.x;
  float s = 0.f;
  if (c < cols)
    for (std::int64_t r = threadIdx.y; r < rows; r += row_lanes) s += dy[r * cols + c];
  part[threadIdx.y][threadIdx.x] = s;
  __syncthreads();
  if (threadIdx.y == 0 && c < cols) {
    float t = 0.f;
    for (int k = 0; k < row_lanes; ++k) t += part[k][threadIdx.x];
    out[c] += t;
  }
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

dim3 column_grid(int cols) { return dim3(static_cast<unsigned>((cols + col_tile - 1) / col_tile)); }
const dim3 column_block(col_tile, row_lanes);

}  // namespace

void layernorm_backward(const float* in, const float* dy, const float* gamma, const float* mean, const float* rstd,
                        float* dx, float* dgamma, float* dbeta, std::int64_t rows, int cols, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) throw std::invalid_argument("layernorm_backward: empty shape");
  const std::int64_t blocks = (rows + warps_per_block - 1) / warps_per_block;
  if (blocks > 0x7fffffff) throw std::invalid_argument("layernorm_backward: too many rows");
  layernorm_dx_kernel<<<static_cast<unsigned>(blocks), warps_per_block * 32, 0, stream>>>(in, dy, gamma, mean, rstd, dx,
                                                                                          rows, cols);
  CUDABENCH_CHECK_LAUNCH();
  layernorm_dparams_kernel<<<column_grid(cols), column_block, 0, stream>>>(in, dy, mean, rstd, dgamma, dbeta, rows,
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
  column_sums_kernel<<<column_grid(cols), column_block, 0, stream>>>(dy, rows, cols, out);
  CUDABENCH_CHECK_LAUNCH();
}

}  // namespace cudabench::kernels::transformer_memory
