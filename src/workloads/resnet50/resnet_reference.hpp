// The independent check for the cuDNN model: the same network in fp32 NCHW through the naive
// kernels of kernels/resnet50/reference_ops.cuh, with the RAW parameters (batch-norm applied as its
// own layer, never folded; shortcut added explicitly), so folding, layouts, channel padding,
// algorithm choice and the fused epilogues are all checked by one comparison of logits.
#pragma once
#include <vector>

#include <cuda_runtime.h>

#include "workloads/resnet50/resnet_arch.hpp"
#include "workloads/resnet50/resnet_params.hpp"

namespace cudabench::resnet {

// Logits [n, num_classes] of `images` (fp32 NCHW [n, 3, H, W] on the device). Synchronises.
std::vector<float> reference_forward(const arch& a, const raw_params& p, const float* images, int n,
                                     cudaStream_t stream);

// ||y - ref||_2 / ||ref||_2 over the first `count` elements (infinity if y has a non-finite value).
double relative_l2(const std::vector<float>& y, const std::vector<float>& ref, std::size_t count);

}  // namespace cudabench::resnet
