// The row-major Linear layer as a cuBLASLt GEMM (blaslt.hpp: linear_shape, make_linear). On its own
// so that the emulated tests (tests/emulated), which stand in for cuBLASLt itself, use this real
// mapping of a layer onto column-major operands rather than a copy of it.
#include "cudabench/gpu/blaslt.hpp"

namespace cudabench {

gemm_shape linear_shape(std::int64_t M, std::int64_t N, std::int64_t K, int batch) {
  // Row-major Y[M,N] is column-major Y^T[N,M] = W[N,K] (col-major view of row-major W is K x N,
  // so op A = T) times X^T (col-major view of row-major X[M,K] is K x M, op B = N).
  gemm_shape s;
  s.trans_a = CUBLAS_OP_T;
  s.trans_b = CUBLAS_OP_N;
  s.m = N;
  s.n = M;
  s.k = K;
  s.lda = K;
  s.ldb = K;
  s.ldc = N;
  s.batch = batch;
  s.stride_a = N * K;
  s.stride_b = M * K;
  s.stride_c = M * N;
  return s;
}

lt_matmul make_linear(const blaslt_context& ctx, std::int64_t M, std::int64_t N, std::int64_t K,
                      const gemm_types& types, gemm_epilogue epilogue, const void* bias, cudaDataType_t bias_type) {
  return lt_matmul(ctx, linear_shape(M, N, K), types, epilogue, bias, bias_type);
}

}  // namespace cudabench
