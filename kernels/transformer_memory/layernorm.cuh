// In-place LayerNorm over the last dimension of a row-major [rows, cols] matrix:
//   x[r, :] = (x[r, :] - mean_r) / sqrt(var_r + eps) * gamma + beta   (biased variance, as torch)
// One warp per row, two-pass mean/variance in fp32 (the row is re-read from L1/L2, not recomputed
// from a running sum, so large means do not cancel). Memory-bound: ~3 reads + 1 write of the row;
// the residual add is already folded into the preceding GEMM (beta = 1), so this is the only extra
// pass over the activations per sub-layer.
#pragma once
#include <cstdint>

#include <cuda_runtime.h>

#include "cudabench/dtype.hpp"

namespace cudabench::kernels::transformer_memory {

// `x`, `gamma`, `beta` are float (type fp32) or __half (fp16); statistics are computed in fp32.
void layernorm_inplace(void* x, const void* gamma, const void* beta, std::int64_t rows, int cols, float eps, dtype type,
                       cudaStream_t stream);

}  // namespace cudabench::kernels::transformer_memory
