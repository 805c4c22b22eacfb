// Independent reference for the matmul workload: naive dot products in double precision for a
// sample of output entries, over the SAME stored (already rounded) input values that cuBLASLt
// read, so the only differences left are cuBLASLt's accumulation and output rounding.
//
// Layout (the matmul workload's convention, row-major, batch outermost):
//   A[batch][m][k], B[batch][n][k] (B stored transposed, like an nn.Linear weight),
//   C[batch][m][n], C[b][i][j] = sum_l A[b][i][l] * B[b][j][l].
// Bound: count * k multiply-adds in fp64, a few ms at most; never timed.
#pragma once
#include <cstdint>

#include <cuda_runtime.h>

#include "cudabench/dtype.hpp"

namespace cudabench::kernels::matmul {

struct gemm_sample {
  std::int32_t batch = 0, row = 0, col = 0;  // row in [0, m), col in [0, n)
};

struct gemm_sample_result {
  double ref = 0;  // sum_l a_l * b_l in double over the stored inputs
  double got = 0;  // the stored output entry, widened to double
  double l2 = 0;   // || (a_l * b_l)_l ||_2: the magnitude of the terms, for a relative error
};

// One warp per sample. `samples` and `out` are device arrays of `count` entries. Inputs A and B
// share `in_type`; both types are storage types (fp32, fp16, bf16, or fp8 for the inputs).
void reference_gemm_samples(dtype in_type, dtype out_type, const void* a, const void* b, const void* c, std::int64_t m,
                            std::int64_t n, std::int64_t k, const gemm_sample* samples, int count,
                            gemm_sample_result* out, cudaStream_t stream);

}  // namespace cudabench::kernels::matmul
