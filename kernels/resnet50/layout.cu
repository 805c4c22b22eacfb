// NCHW fp32 -> NHWC (channel-padded) conversion; see layout.cuh.
#include "kernels/resnet50/layout.cuh"

#include <cassert>

#include "cudabench/gpu/cuda_check.hpp"

namespace cudabench::kernels::resnet50 {
namespace {

template <class T>
__global__ void nchw_to_nhwc_kernel(const float* __restrict__ x, T* __restrict__ y, int c, int h, int w, int c_pad,
                                    long long total) {
  const long long idx = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (idx >= total) return;
  // idx = ((ni * h + hi) * w + wi) * c_pad + ci (output order, so stores coalesce).
  const int ci = static_cast<int>(idx % c_pad);
  const long long pix = idx / c_pad;
  const int wi = static_cast<int>(pix % w);
  const int hi = static_cast<int>((pix / w) % h);
  const long long ni = pix / (static_cast<long long>(w) * h);
  const float v = ci < c ? x[((ni * c + ci) * h + hi) * w + wi] : 0.0f;
  y[idx] = static_cast<T>(v);
}

template <class T>
void launch(const float* x, T* y, int n, int c, int h, int w, int c_pad, cudaStream_t stream) {
  assert(n > 0 && c > 0 && h > 0 && w > 0 && c_pad >= c);
  const long long total = static_cast<long long>(n) * h * w * c_pad;
  constexpr int block = 256;
  const unsigned grid = static_cast<unsigned>((total + block - 1) / block);
  nchw_to_nhwc_kernel<T><<<grid, block, 0, stream>>>(x, y, c, h, w, c_pad, total);
  CUDABENCH_CHECK_LAUNCH();
}

}  // namespace

void nchw_to_nhwc_padded(const float* x, __half* y, int n, int c, int h, int w, int c_pad, cudaStream_t stream) {
  launch(x, y, n, c, h, w, c_pad, stream);
}
void nchw_to_nhwc_padded(const float* x, float* y, int n, int c, int h, int w, int c_pad, cudaStream_t stream) {
  launch(x, y, n, c, h, w, c_pad, stream);
}

}  // namespace cudabench::kernels::resnet50
