// Naive fp32 NCHW reference layers for checking the cuDNN ResNet-50: direct convolution (no bias),
// eval-mode batch-norm with the raw (unfolded) parameters, residual add + ReLU, 3x3 max-pool,
// global average pool and the fully connected layer. One thread per output element, fp32
// accumulation, no tiling: obviously correct rather than fast. The direct convolution is
// compute-bound on cached loads (a few hundred GFLOP/s); a batch-2 ResNet-50 (16 GFLOP) takes
// well under a second, which is fine for validation and never timed.
#pragma once
#include <cuda_runtime.h>

namespace cudabench::kernels::resnet50 {

// y[n,k,p,q] = sum_{c,r,s} x[n,c,p*stride-pad+r, q*stride-pad+s] * w[k,c,r,s] (zero padding).
void reference_conv2d(const float* x, const float* w, float* y, int n, int c, int h, int wd, int k, int kernel,
                      int stride, int pad, cudaStream_t stream);

// In place on y[n,k,hw]: y = (y - mean[k]) / sqrt(var[k] + eps) * gamma[k] + beta[k].
void reference_batchnorm(float* y, const float* gamma, const float* beta, const float* mean, const float* var,
                         float eps, int n, int k, int hw, cudaStream_t stream);

// In place: y = y + z (if z) then max(y, 0) (if relu), over `count` elements.
void reference_add_relu(float* y, const float* z, bool relu, long long count, cudaStream_t stream);

// 3x3, stride 2, padding 1 max-pool (padding never wins) on x[n,c,h,w] -> y[n,c,p,q].
void reference_maxpool3x3s2(const float* x, float* y, int n, int c, int h, int w, cudaStream_t stream);

// y[n,c] = mean over hw of x[n,c,hw].
void reference_global_avgpool(const float* x, float* y, int n, int c, int hw, cudaStream_t stream);

// y[n,o] = sum_i x[n,i] * w[o,i] + b[o].
void reference_linear(const float* x, const float* w, const float* b, float* y, int n, int in, int out,
                      cudaStream_t stream);

}  // namespace cudabench::kernels::resnet50
