// Mean-squared-error loss of a half-precision prediction against an fp32 target, and the scaled
// gradient that starts the backward pass (what torch.cuda.amp does for mse_loss: it runs in fp32,
// the gradient of scale*loss flows back into the fp16/bf16 output):
//   loss_sum += sum_i (y_i - t_i)^2 / n          (fp32, one atomicAdd per block)
//   dy_i      = scale * 2 * (y_i - t_i) / n       rounded to y's type
// `scale` is read from device memory (the loss scaler's state), so no host sync is needed.
// Memory-bound: 2 + 4 bytes read and 2 written per element.
#pragma once
#include <cstddef>

#include <cuda_runtime.h>

#include "kernels/train_step/cast.cuh"

namespace cudabench::kernels::train_step {

// y, dy: __half or __nv_bfloat16 per `kind`; loss_sum must be zeroed by the caller beforehand.
void mse_loss_backward(const void* y, const float* target, void* dy, std::size_t n, const float* scale, float* loss_sum,
                       dtype kind, cudaStream_t stream);

}  // namespace cudabench::kernels::train_step
