// The element-wise and reduction steps of transformer_memory's backward pass (mode train with
// backward: true), fp32 only, each reading what the forward saved (train_ops.cuh):
//   layernorm_backward:     dx = rstd * (dy*g - mean(dy*g) - xhat * mean(dy*g*xhat)), xhat from the
//                           saved input, mean and rstd; dgamma += sum_rows dy*xhat, dbeta += sum_rows dy
//   dropout_backward:       dx = mask ? dy * scale : 0                 (the forward's saved mask)
//   relu_dropout_backward:  dh = relu_out > 0 ? (mask ? dh * scale : 0) : 0, in place
//   column_sums:            out[c] += sum_rows dy[r, c]                (a Linear's bias gradient)
// Column reductions (dgamma, dbeta, the bias gradients) have no atomics: each column is summed by
// one block in a fixed order, so they are the same bit for bit on every run.
#pragma once
#include <cstdint>

#include <cuda_runtime.h>

namespace cudabench::kernels::transformer_memory {

void layernorm_backward(const float* in, const float* dy, const float* gamma, const float* mean, const float* rstd,
                        float* dx, float* dgamma, float* dbeta, std::int64_t rows, int cols, cudaStream_t stream);
// mask null (p = 0): dx = dy.
void dropout_backward(const float* dy, const std::uint8_t* mask, float scale, float* dx, std::int64_t n,
                      cudaStream_t stream);
void relu_dropout_backward(float* dh, const float* relu_out, const std::uint8_t* mask, float scale, std::int64_t n,
                           cudaStream_t stream);
void column_sums(const float* dy, std::int64_t rows, int cols, float* out, cudaStream_t stream);

}  // namespace cudabench::kernels::transformer_memory
