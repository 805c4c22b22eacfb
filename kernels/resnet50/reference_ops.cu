// Naive fp32 NCHW reference layers (see reference_ops.cuh): what each computes, its layout and why
// it is this simple are stated there. Every kernel is one thread per output element with a
// grid-stride-free ceil-div grid and an explicit bounds check.
#include "kernels/resnet50/reference_ops.cuh"

#include <cassert>

#include "cudabench/gpu/cuda_check.hpp"

namespace cudabench::kernels::resnet50 {
namespace {

constexpr int block = 256;

inline unsigned grid_for(long long count) { return static_cast<unsigned>((count + block - 1) / block); }

__global__ void conv2d_kernel(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y, int n,
                              int c, int h, int wd, int k, int kernel, int stride, int pad, int p, int q) {
  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long total = static_cast<long long>(n) * k * p * q;
  if (idx >= total) return;
  // idx = ((ni * k + ki) * p + pi) * q + qi: consecutive threads walk q, so x loads coalesce and
  // the weight loads of a warp hit the same address (broadcast).
  const int qi = static_cast<int>(idx % q);
  const int pi = static_cast<int>((idx / q) % p);
  const int ki = static_cast<int>((idx / (static_cast<long long>(q) * p)) % k);
  const int ni = static_cast<int>(idx / (static_cast<long long>(q) * p * k));
  float acc = 0.0f;
  for (int ci = 0; ci < c; ++ci) {
    const float* xc = x + (static_cast<long long>(ni) * c + ci) * h * wd;
    const float* wc = w + (static_cast<long long>(ki) * c + ci) * kernel * kernel;
    for (int r = 0; r < kernel; ++r) {
      const int hi = pi * stride - pad + r;
      if (hi < 0 || hi >= h) continue;
      for (int s = 0; s < kernel; ++s) {
        const int wi = qi * stride - pad + s;
        if (wi < 0 || wi >= wd) continue;
        acc = fmaf(xc[static_cast<long long>(hi) * wd + wi], wc[r * kernel + s], acc);
      }
    }
  }
  y[idx] = acc;
}

__global__ void batchnorm_kernel(float* __restrict__ y, const float* __restrict__ gamma, const float* __restrict__ beta,
                                 const float* __restrict__ mean, const float* __restrict__ var, float eps, int k,
                                 int hw, long long total) {
  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= total) return;
  const int ki = static_cast<int>((idx / hw) % k);
  y[idx] = (y[idx] - mean[ki]) / sqrtf(var[ki] + eps) * gamma[ki] + beta[ki];
}

__global__ void add_relu_kernel(float* __restrict__ y, const float* __restrict__ z, bool relu, long long total) {
  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= total) return;
  float v = y[idx];
  if (z) v += z[idx];
  if (relu) v = fmaxf(v, 0.0f);
  y[idx] = v;
}

__global__ void maxpool_kernel(const float* __restrict__ x, float* __restrict__ y, int n, int c, int h, int w, int p,
                               int q) {
  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long total = static_cast<long long>(n) * c * p * q;
  if (idx >= total) return;
  const int qi = static_cast<int>(idx % q);
  const int pi = static_cast<int>((idx / q) % p);
  const long long nc = idx / (static_cast<long long>(q) * p);
  const float* xc = x + nc * h * w;
  float m = -INFINITY;
  for (int r = 0; r < 3; ++r) {
    const int hi = pi * 2 - 1 + r;
    if (hi < 0 || hi >= h) continue;
    for (int s = 0; s < 3; ++s) {
      const int wi = qi * 2 - 1 + s;
      if (wi < 0 || wi >= w) continue;
      m = fmaxf(m, xc[static_cast<long long>(hi) * w + wi]);
    }
  }
  y[idx] = m;
}

__global__ void avgpool_kernel(const float* __restrict__ x, float* __restrict__ y, int hw, long long total) {
  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= total) return;
  const float* xc = x + idx * hw;
  float s = 0.0f;
  for (int i = 0; i < hw; ++i) s += xc[i];
  y[idx] = s / static_cast<float>(hw);
}

__global__ void linear_kernel(const float* __restrict__ x, const float* __restrict__ w, const float* __restrict__ b,
                              float* __restrict__ y, int n, int in, int out) {
  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= static_cast<long long>(n) * out) return;
  const int o = static_cast<int>(idx % out);
  const int ni = static_cast<int>(idx / out);
  float acc = b[o];
  for (int i = 0; i < in; ++i)
    acc = fmaf(x[static_cast<long long>(ni) * in + i], w[static_cast<long long>(o) * in + i], acc);
  y[idx] = acc;
}

}  // namespace

void reference_conv2d(const float* x, const float* w, float* y, int n, int c, int h, int wd, int k, int kernel,
                      int stride, int pad, cudaStream_t stream) {
  assert(n > 0 && c > 0 && h > 0 && wd > 0 && k > 0 && kernel > 0 && stride > 0 && pad >= 0);
  const int p = (h + 2 * pad - kernel) / stride + 1, q = (wd + 2 * pad - kernel) / stride + 1;
  assert(p > 0 && q > 0);
  const long long total = static_cast<long long>(n) * k * p * q;
  conv2d_kernel<<<grid_for(total), block, 0, stream>>>(x, w, y, n, c, h, wd, k, kernel, stride, pad, p, q);
  CUDABENCH_CHECK_LAUNCH();
}

void reference_batchnorm(float* y, const float* gamma, const float* beta, const float* mean, const float* var,
                         float eps, int n, int k, int hw, cudaStream_t stream) {
  assert(n > 0 && k > 0 && hw > 0);
  const long long total = static_cast<long long>(n) * k * hw;
  batchnorm_kernel<<<grid_for(total), block, 0, stream>>>(y, gamma, beta, mean, var, eps, k, hw, total);
  CUDABENCH_CHECK_LAUNCH();
}

void reference_add_relu(float* y, const float* z, bool relu, long long count, cudaStream_t stream) {
  assert(count > 0);
  add_relu_kernel<<<grid_for(count), block, 0, stream>>>(y, z, relu, count);
  CUDABENCH_CHECK_LAUNCH();
}

void reference_maxpool3x3s2(const float* x, float* y, int n, int c, int h, int w, cudaStream_t stream) {
  assert(n > 0 && c > 0 && h > 0 && w > 0);
  const int p = (h + 2 - 3) / 2 + 1, q = (w + 2 - 3) / 2 + 1;
  const long long total = static_cast<long long>(n) * c * p * q;
  maxpool_kernel<<<grid_for(total), block, 0, stream>>>(x, y, n, c, h, w, p, q);
  CUDABENCH_CHECK_LAUNCH();
}

void reference_global_avgpool(const float* x, float* y, int n, int c, int hw, cudaStream_t stream) {
  assert(n > 0 && c > 0 && hw > 0);
  const long long total = static_cast<long long>(n) * c;
  avgpool_kernel<<<grid_for(total), block, 0, stream>>>(x, y, hw, total);
  CUDABENCH_CHECK_LAUNCH();
}

void reference_linear(const float* x, const float* w, const float* b, float* y, int n, int in, int out,
                      cudaStream_t stream) {
  assert(n > 0 && in > 0 && out > 0);
  const long long total = static_cast<long long>(n) * out;
  linear_kernel<<<grid_for(total), block, 0, stream>>>(x, w, b, y, n, in, out);
  CUDABENCH_CHECK_LAUNCH();
}

}  // namespace cudabench::kernels::resnet50
