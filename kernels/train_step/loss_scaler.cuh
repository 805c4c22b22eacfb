// Dynamic loss scaling on the device, as torch.cuda.amp.GradScaler does it, with no host sync:
//   find_nonfinite: found_inf |= any(!isfinite(grad))     (reads the scaled fp32 gradients)
//   scaler_update:  if found_inf: scale *= backoff, growth_tracker = 0, ++skipped (the optimizer
//                   skipped the step)
//                   else: ++step; if ++growth_tracker == interval: scale *= growth, tracker = 0
//                   then found_inf = 0 for the next step.
// The optimizer kernel (adamw.cuh) reads found_inf and does nothing when it is set.
// find_nonfinite is memory-bound: 4 bytes read per gradient element.
#pragma once
#include <cstddef>

#include <cuda_runtime.h>

namespace cudabench::kernels::train_step {

struct scaler_state {
  float scale = 65536.f;   // GradScaler's init_scale 2^16
  int growth_tracker = 0;  // good steps since the last change of scale
  int found_inf = 0;       // set by find_nonfinite, cleared by scaler_update
  int step = 0;            // optimizer steps taken (skipped steps do not count), AdamW's t
  int skipped = 0;         // steps skipped on overflow since init: train_step's skipped_steps, read
                           // once after the timed repetitions instead of a sync per step
};

struct scaler_config {
  float growth = 2.f;
  float backoff = 0.5f;
  int interval = 2000;
};

void find_nonfinite(const float* grad, std::size_t n, scaler_state* state, cudaStream_t stream);
void scaler_update(scaler_state* state, const scaler_config& cfg, cudaStream_t stream);

}  // namespace cudabench::kernels::train_step
