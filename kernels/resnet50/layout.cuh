// Input images into the model's layout: fp32 NCHW [n, c, h, w] (what a loader or torchvision
// produces) -> NHWC [n, h, w, c_pad] in fp16 or fp32 with channels c..c_pad-1 zero (the fp16 model
// pads the 3 colour channels to 8 so the stem convolution can use tensor-core kernels), or a plain
// fp32 NCHW copy. One thread per output element; memory-bound, run at setup only.
#pragma once
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace cudabench::kernels::resnet50 {

void nchw_to_nhwc_padded(const float* x, __half* y, int n, int c, int h, int w, int c_pad, cudaStream_t stream);
void nchw_to_nhwc_padded(const float* x, float* y, int n, int c, int h, int w, int c_pad, cudaStream_t stream);

}  // namespace cudabench::kernels::resnet50
