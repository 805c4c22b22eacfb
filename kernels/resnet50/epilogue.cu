// Unfused bias + residual + ReLU epilogue; see epilogue.cuh.
#include "kernels/resnet50/epilogue.cuh"

#include <cassert>

#include <cuda_fp16.h>

#include "cudabench/gpu/cuda_check.hpp"
#include "kernels/common/convert.cuh"

namespace cudabench::kernels::resnet50 {
namespace {

template <class T>
__global__ void bias_residual_relu_kernel(T* __restrict__ y, const T* __restrict__ bias, const T* __restrict__ z,
                                          bool nhwc, long long count, int k, int pq) {
  const long long i = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= count) return;
  const int c = nhwc ? static_cast<int>(i % k) : static_cast<int>((i / pq) % k);
  float v = to_float(y[i]) + to_float(bias[c]);
  if (z) v += to_float(z[i]);
  store_float(y + i, fmaxf(v, 0.0f));
}

}  // namespace

void bias_residual_relu(void* y, const void* bias, const void* z, dtype type, bool nhwc, long long count, int k, int pq,
                        cudaStream_t stream) {
  assert(y && bias && count > 0 && k > 0 && pq > 0 && count % (static_cast<long long>(k) * pq) == 0);
  constexpr int block = 256;
  const unsigned grid = static_cast<unsigned>((count + block - 1) / block);
  if (type == dtype::fp16)
    bias_residual_relu_kernel<__half><<<grid, block, 0, stream>>>(
        static_cast<__half*>(y), static_cast<const __half*>(bias), static_cast<const __half*>(z), nhwc, count, k, pq);
  else
    bias_residual_relu_kernel<float><<<grid, block, 0, stream>>>(
        static_cast<float*>(y), static_cast<const float*>(bias), static_cast<const float*>(z), nhwc, count, k, pq);
  CUDABENCH_CHECK_LAUNCH();
}

}  // namespace cudabench::kernels::resnet50
