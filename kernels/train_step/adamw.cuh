// Fused AdamW step over the fp32 master weights (torch.optim.AdamW's arithmetic, decoupled weight
// decay, bias correction), reading the scaled gradients and the loss scaler's state on the device:
//   if found_inf: nothing (the step is skipped, as GradScaler.step does)
//   t = step + 1; g = grad / scale
//   p *= 1 - lr*wd;  m += (1-b1)(g - m);  v = b2 v + (1-b2) g^2
//   p -= lr/(1-b1^t) * m / (sqrt(v)/sqrt(1-b2^t) + eps);  copy = half(p)
// One pass, memory-bound: 16 bytes read (p, g, m, v) and 14 written (p, m, v, 16-bit copy) per
// parameter; at 4.3 TB/s that is ~7 ns per 1000 parameters.
#pragma once
#include <cstddef>

#include <cuda_runtime.h>

#include "kernels/train_step/cast.cuh"
#include "kernels/train_step/loss_scaler.cuh"

namespace cudabench::kernels::train_step {

struct adamw_hparams {
  float lr = 1e-3f;
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  float eps = 1e-8f;
  float weight_decay = 1e-2f;
};

// half_copy: __half or __nv_bfloat16 per `kind` (the compute weights the next forward uses).
void adamw_step(float* master, void* half_copy, const float* grad, float* m, float* v, std::size_t n,
                const scaler_state* state, const adamw_hparams& hp, dtype kind, cudaStream_t stream);

}  // namespace cudabench::kernels::train_step
