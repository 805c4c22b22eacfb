// SwiGLU for the prefill MLP: act[t][i] = T(T(silu(gate[t][i])) * up[t][i]), reading the fused
// gate/up GEMM output gu[t] = [gate (n) | up (n)]. Element-wise: 3 x rows x n x 2 bytes moved
// (128 x 11008: ~8 MB per layer, ~2 us). Decode fuses this into the gate/up GEMV's epilogue.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace cudabench::kernels::llm_decode {

template <class T>
void swiglu(const T* gu, int rows, int n, T* act, cudaStream_t stream);

}  // namespace cudabench::kernels::llm_decode
