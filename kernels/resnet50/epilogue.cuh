// Fallback epilogue for a convolution cuDNN will not fuse: y = relu(y + bias[k] (+ z)), in place,
// over a [n, k, p, q] tensor stored NHWC (channel = i % k) or NCHW (channel = (i / pq) % k), fp16
// or fp32 (fp32 arithmetic). One thread per element; memory-bound (reads y, z, writes y: 3 passes
// where a fused epilogue needs 1), used only when cudnnConvolutionBiasActivationForward refuses
// every algorithm for a layer.
#pragma once
#include <cuda_runtime.h>

#include "cudabench/dtype.hpp"

namespace cudabench::kernels::resnet50 {

// `type`: fp16 (__half tensors) or fp32 (float).
void bias_residual_relu(void* y, const void* bias, const void* z, dtype type, bool nhwc, long long count, int k, int pq,
                        cudaStream_t stream);

}  // namespace cudabench::kernels::resnet50
