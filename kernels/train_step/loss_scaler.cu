// See loss_scaler.cuh. The check writes the flag only from threads that found a bad value (a
// benign race: every writer stores 1), so a clean gradient costs reads only.
#include "kernels/train_step/loss_scaler.cuh"

#include "cudabench/gpu/cuda_check.hpp"

namespace cudabench::kernels::train_step {
namespace {

__global__ void nonfinite_kernel(const float4* __restrict__ g4, std::size_t n4, const float* __restrict__ tail,
                                 std::size_t ntail, scaler_state* state) {
  bool bad = false;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t start = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (std::size_t i = start; i < n4; i += stride) {
    const float4 v = g4[i];
    bad |= !isfinite(v.x) || !isfinite(v.y) || !isfinite(v.z) || !isfinite(v.w);
  }
  for (std::size_t i = start; i < ntail; i += stride) bad |= !isfinite(tail[i]);
  if (__any_sync(0xffffffffu, bad) && threadIdx.x % 32 == 0) state->found_inf = 1;
}

__global__ void update_kernel(scaler_state* s, scaler_config cfg) {
  if (s->found_inf) {
    s->scale *= cfg.backoff;
    s->growth_tracker = 0;
    ++s->skipped;
  } else {
    ++s->step;
    if (++s->growth_tracker == cfg.interval) {
      s->scale *= cfg.growth;
      s->growth_tracker = 0;
    }
  }
  s->found_inf = 0;
}

}  // namespace

void find_nonfinite(const float* grad, std::size_t n, scaler_state* state, cudaStream_t stream) {
  if (n == 0) return;
  // float4 loads need 16-byte alignment; cudaMalloc'd arenas give 256.
  const std::size_t n4 = n / 4, ntail = n - n4 * 4;
  constexpr int threads = 256;
  const std::size_t needed = (n4 + threads - 1) / threads;
  const unsigned blocks = static_cast<unsigned>(needed == 0 ? 1 : (needed < 8192 ? needed : 8192));
  nonfinite_kernel<<<blocks, threads, 0, stream>>>(reinterpret_cast<const float4*>(grad), n4, grad + n4 * 4, ntail,
                                                   state);
  CUDABENCH_CHECK_LAUNCH();
}

void scaler_update(scaler_state* state, const scaler_config& cfg, cudaStream_t stream) {
  update_kernel<<<1, 1, 0, stream>>>(state, cfg);
  CUDABENCH_CHECK_LAUNCH();
}

}  // namespace cudabench::kernels::train_step
