// The CUDA side of dtype.hpp: each element type's cudaDataType_t and the cuBLAS compute type a
// GEMM on it uses (fp32 accumulation throughout; tf32 is what selects the TF32 tensor cores).
#pragma once
#include <cublas_api.h>
#include <library_types.h>

#include "cudabench/dtype.hpp"

namespace cudabench {

// The storage type (tf32 is CUDA_R_32F).
constexpr cudaDataType_t cuda_data_type(dtype d) {
  switch (d) {
    case dtype::fp32:
    case dtype::tf32: return CUDA_R_32F;
    case dtype::fp16: return CUDA_R_16F;
    case dtype::bf16: return CUDA_R_16BF;
    case dtype::fp8_e4m3: return CUDA_R_8F_E4M3;
  }
  return CUDA_R_32F;
}

// fp32 is true FP32 (no TF32); every narrower type accumulates in fp32.
constexpr cublasComputeType_t cublas_compute_type(dtype d) {
  return d == dtype::tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
}

}  // namespace cudabench
