// See adamw.cuh. Grid-stride loop, one parameter per thread per step. The bias corrections are
// computed in double from the device step count, then rounded to float as PyTorch does when it
// passes its Python-float step size to the fp32 kernels.
#include "kernels/train_step/adamw.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "cudabench/gpu/cuda_check.hpp"
#include "kernels/common/convert.cuh"

namespace cudabench::kernels::train_step {
namespace {

template <class T>
__global__ void adamw_kernel(float* __restrict__ p, T* __restrict__ copy, const float* __restrict__ grad,
                             float* __restrict__ m, float* __restrict__ v, std::size_t n,
                             const scaler_state* __restrict__ st, adamw_hparams hp) {
  if (st->found_inf) return;
  const int t = st->step + 1;
  const float inv_scale = static_cast<float>(1.0 / static_cast<double>(st->scale));
  const double bc1 = 1.0 - pow(static_cast<double>(hp.beta1), t);
  const double bc2 = 1.0 - pow(static_cast<double>(hp.beta2), t);
  const float step_size = static_cast<float>(static_cast<double>(hp.lr) / bc1);
  const float bc2_sqrt = static_cast<float>(sqrt(bc2));
  const float decay = static_cast<float>(1.0 - static_cast<double>(hp.lr) * hp.weight_decay);
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const float g = grad[i] * inv_scale;
    float pi = p[i] * decay;
    float mi = m[i];
    mi = mi + (1.f - hp.beta1) * (g - mi);
    const float vi = v[i] * hp.beta2 + (1.f - hp.beta2) * g * g;
    const float denom = sqrtf(vi) / bc2_sqrt + hp.eps;
    pi = pi - step_size * (mi / denom);
    p[i] = pi;
    m[i] = mi;
    v[i] = vi;
    store_float(copy + i, pi);
  }
}

}  // namespace

void adamw_step(float* master, void* half_copy, const float* grad, float* m, float* v, std::size_t n,
                const scaler_state* state, const adamw_hparams& hp, dtype kind, cudaStream_t stream) {
  if (n == 0) return;
  constexpr int threads = 256;
  const std::size_t needed = (n + threads - 1) / threads;
  const unsigned blocks = static_cast<unsigned>(needed < 16384 ? needed : 16384);
  if (kind == dtype::fp16)
    adamw_kernel<<<blocks, threads, 0, stream>>>(master, static_cast<__half*>(half_copy), grad, m, v, n, state, hp);
  else
    adamw_kernel<<<blocks, threads, 0, stream>>>(master, static_cast<__nv_bfloat16*>(half_copy), grad, m, v, n, state,
                                                 hp);
  CUDABENCH_CHECK_LAUNCH();
}

}  // namespace cudabench::kernels::train_step
