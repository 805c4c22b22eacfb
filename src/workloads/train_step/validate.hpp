// Checks of mlp_trainer: first-step gradients against the CPU double reference, the loss curve on
// the fixed synthetic target, and a sampled check of a full-size weight gradient.
#pragma once
#include <vector>

#include <cuda_runtime.h>

#include "cudabench/gpu/workload.hpp"
#include "workloads/train_step/mlp_trainer.hpp"

namespace cudabench::train {

// Small shape for validation through the same code: 3 layers, hidden 256, batch 128.
mlp_config validation_config(dtype kind);
// Error = per layer ||g - ref||_2 / ||ref||_2 (normwise relative), the maximum over layers.
// Tolerance fp16 5e-2, bf16 1e-1: the reference uses the fp32 master weights and exact
// activations, the GPU 16-bit weight copies, activations and activation gradients (dW itself
// accumulates in fp32). A numpy model of exactly this arithmetic gives up to 1.7e-2 (fp16) and
// 4e-2 (bf16) over seeds on the validation shape -- mostly from rounding the weights to 16 bits --
// while a wrong transpose, mask or scale gives O(1).
double gradient_tolerance(dtype kind);

// Snapshot the fp32 master weights, input and target; run forward_backward; compare the
// unscaled gradients with reference_gradients(). The trainer must be freshly init()ed.
validation_outcome check_first_step_gradients(mlp_trainer& t, cudaStream_t stream, double tolerance);

// `steps` full steps; the loss of each forward (read back after each step).
std::vector<float> loss_curve(mlp_trainer& t, int steps, cudaStream_t stream);
// Passes when the mean of the last 5 losses is below `ratio` x the first.
validation_outcome check_loss_falls(const std::vector<float>& losses, double ratio);

// After forward_backward on any shape: `samples` entries of dW_0 = dZ_0^T X_0 recomputed on the
// host in double from the device's 16-bit dZ_0 and X_0; error normalised by max |ref|.
validation_outcome check_sampled_first_layer_grad(const mlp_trainer& t, int samples, double tolerance);

}  // namespace cudabench::train
