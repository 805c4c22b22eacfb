// ReLU backward as a mask, in place: dx_i = out_i > 0 ? dx_i : 0, where `out` is the ReLU's
// output saved by the forward pass (out > 0 exactly where the pre-activation was > 0, so the
// pre-activation need not be kept). Memory-bound: 4 bytes read, 2 written per element.
#pragma once
#include <cstddef>

#include <cuda_runtime.h>

#include "kernels/train_step/cast.cuh"

namespace cudabench::kernels::train_step {

// dx, out: __half or __nv_bfloat16 per `kind`.
void relu_backward_inplace(void* dx, const void* out, std::size_t n, dtype kind, cudaStream_t stream);

}  // namespace cudabench::kernels::train_step
