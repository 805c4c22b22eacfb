// Fused residual add + RMSNorm over `rows` rows of width `hidden` (prefill, and the final norm):
//   h[r] = T(h[r] + delta[r])                      (skipped when delta is null)
//   out[r] = T(w * T(h[r] * rsqrt(mean(h[r]^2) + eps)))   -- transformers' LlamaRMSNorm rounding
// One read of h and delta, one write of h and out: ~4 x rows x hidden x 2 bytes, a few MB in
// prefill; the decode path fuses the norm into the GEMV prologue instead (gemv.cuh).
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace cudabench::kernels::llm_decode {

template <class T>
void residual_rmsnorm(T* h, const T* delta, const T* weight, float eps, int rows, int hidden, T* out,
                      cudaStream_t stream);

}  // namespace cudabench::kernels::llm_decode
