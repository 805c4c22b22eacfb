// A thin RAII layer over cuBLASLt for the workloads' GEMMs: one context (handle + workspace) per
// workload, one planned matmul per shape (descriptors + the heuristic's best algorithm chosen
// once at setup, so nothing is planned inside the timed region). Every cuBLASLt layout,
// descriptor and heuristic query of the tool is here; a caller that times the heuristic's
// candidates itself (matmul) plans with lt_matmul::describe() and picks with use().
// Column-major like cuBLAS: D[m,n] = alpha * op(A)[m,k] * op(B)[k,n] + beta * C, with an optional
// epilogue (bias per row of D, ReLU, GELU). make_linear() gives the row-major layer form.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include <cublasLt.h>
#include <cuda_runtime.h>

#include "cudabench/device_memory.hpp"
#include "cudabench/dtype.hpp"

namespace cudabench {

enum class gemm_epilogue { none, bias, relu, bias_relu, bias_gelu };

struct gemm_types {
  cudaDataType_t a = CUDA_R_32F, b = CUDA_R_32F, c = CUDA_R_32F;  // D has C's type
  cublasComputeType_t compute = CUBLAS_COMPUTE_32F;
  cudaDataType_t scale = CUDA_R_32F;  // type of alpha/beta
};
// A, B, C and D of type `d`, float alpha/beta, fp32 accumulation: fp32 is true fp32 (no TF32),
// tf32 is fp32 storage on TF32 tensor cores (dtype_cuda.hpp).
gemm_types gemm_types_of(dtype d);

struct gemm_shape {
  cublasOperation_t trans_a = CUBLAS_OP_N, trans_b = CUBLAS_OP_N;
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t lda = 0, ldb = 0, ldc = 0;
  int batch = 1;
  std::int64_t stride_a = 0, stride_b = 0, stride_c = 0;  // elements, for batch > 1
};

class blaslt_context {
 public:
  explicit blaslt_context(std::size_t workspace_bytes = 32u << 20);
  ~blaslt_context();
  blaslt_context(const blaslt_context&) = delete;
  blaslt_context& operator=(const blaslt_context&) = delete;
  cublasLtHandle_t handle() const { return handle_; }
  void* workspace() const { return workspace_.get(); }
  std::size_t workspace_bytes() const { return workspace_.bytes(); }

 private:
  cublasLtHandle_t handle_ = nullptr;
  device_buffer<std::byte> workspace_;
};

class lt_matmul {
 public:
  // Plans the GEMM with the heuristic's first algorithm; throws unsupported_error if it has none.
  lt_matmul(const blaslt_context& ctx, const gemm_shape& shape, const gemm_types& types,
            gemm_epilogue epilogue = gemm_epilogue::none, const void* bias = nullptr,
            cudaDataType_t bias_type = CUDA_R_32F);
  // The descriptors only, no algorithm yet: the caller takes one of candidates() with use()
  // before running.
  static lt_matmul describe(const blaslt_context& ctx, const gemm_shape& shape, const gemm_types& types);
  ~lt_matmul();
  lt_matmul(lt_matmul&& o) noexcept;
  lt_matmul& operator=(lt_matmul&&) = delete;
  lt_matmul(const lt_matmul&) = delete;

  // D = alpha*op(A)op(B) + beta*C; `d` may equal `c`. alpha/beta point to host values of the
  // scale type (float for every gemm_types_* above).
  void run(const void* alpha, const void* a, const void* b, const void* beta, const void* c, void* d,
           cudaStream_t stream) const;
  // Convenience: alpha = 1, beta = 0, D written in place of C.
  void run(const void* a, const void* b, void* d, cudaStream_t stream) const;

  // The heuristic's algorithms for this GEMM, best first: up to `max` of those that it says can
  // run within the context's workspace, with every batch's base pointer as aligned as the
  // strides allow. Empty if there are none; `status` (if given) then says why.
  std::vector<cublasLtMatmulAlgo_t> candidates(int max, cublasStatus_t* status = nullptr) const;
  void use(const cublasLtMatmulAlgo_t& algo) { algo_ = algo; }
  const cublasLtMatmulAlgo_t& algorithm() const { return algo_; }
  // run(a, b, d) with `algo` instead of the chosen one, returning cuBLASLt's status instead of
  // throwing: for timing candidates, some of which may refuse to run.
  cublasStatus_t try_run(const cublasLtMatmulAlgo_t& algo, const void* a, const void* b, void* d,
                         cudaStream_t stream) const;

 private:
  lt_matmul(const blaslt_context& ctx, const gemm_shape& shape, const gemm_types& types, gemm_epilogue epilogue,
            const void* bias, cudaDataType_t bias_type, bool pick_algorithm);

  const blaslt_context* ctx_;
  gemm_shape shape_;
  std::size_t a_bytes_ = 4, b_bytes_ = 4, c_bytes_ = 4;  // element sizes, for the batch alignment
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t la_ = nullptr, lb_ = nullptr, lc_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
  bool float_scale_ = true;
};

// Row-major linear layer, as in torch.nn.Linear: Y[M,N] = X[M,K] · W[N,K]^T (+ bias[N]) (+ act).
// Run it as `lin.run(W, X, Y, stream)` (cuBLAS sees W as A and X as B).
// linear_shape() is its shape; with batch > 1, `batch` such products, each operand's matrices
// stored one after another.
gemm_shape linear_shape(std::int64_t M, std::int64_t N, std::int64_t K, int batch = 1);
lt_matmul make_linear(const blaslt_context& ctx, std::int64_t M, std::int64_t N, std::int64_t K,
                      const gemm_types& types, gemm_epilogue epilogue = gemm_epilogue::none, const void* bias = nullptr,
                      cudaDataType_t bias_type = CUDA_R_32F);

}  // namespace cudabench
