// Workload kind `matmul`: one (optionally strided-batched) cuBLASLt GEMM.
//
//   C[b] = A[b] · B[b]^T for b < batch, row-major: A is m x k, B is stored n x k (the nn.Linear
//   weight layout, i.e. column-major k x n), C is m x n. In cuBLAS's column-major terms this is the
//   "TN" GEMM C^T = op_T(B) · A, the layout cuBLASLt requires for fp8 and its fastest for the
//   others, so every dtype runs the same problem.
//
// dtype: fp32 (true FP32, CUBLAS_COMPUTE_32F, no TF32), tf32 (fp32 storage, TF32 tensor cores),
// fp16 / bf16 (16-bit in and out, fp32 accumulate), fp8 (e4m3 A and B, bf16 out, fp32
// accumulate; unsupported below compute capability 8.9).
// Metrics: time_ms, tflops = 2·m·n·k·batch / time, and where energy was measured tflops_per_w =
// 2·m·n·k·batch / energy per run (energy_metrics.hpp).
#pragma once
#include <memory>

#include "cudabench/gpu/workload.hpp"

namespace cudabench {

std::unique_ptr<workload> make_matmul(const workload_spec& spec);

}  // namespace cudabench
