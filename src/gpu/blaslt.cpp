// See blaslt.hpp.
#include "cudabench/blaslt.hpp"

#include <utility>

#include <fmt/format.h>

#include "cudabench/cuda_check.hpp"
#include "cudabench/dtype_cuda.hpp"

namespace cudabench {

gemm_types gemm_types_of(dtype d) {
  const cudaDataType_t t = cuda_data_type(d);
  return {t, t, t, cublas_compute_type(d), CUDA_R_32F};
}

blaslt_context::blaslt_context(std::size_t workspace_bytes) : workspace_(workspace_bytes) {
  CUDABENCH_CHECK_CUBLAS(cublasLtCreate(&handle_));
}

blaslt_context::~blaslt_context() {
  if (handle_) cublasLtDestroy(handle_);
}

namespace {
cublasLtEpilogue_t to_lt(gemm_epilogue e) {
  switch (e) {
    case gemm_epilogue::none: return CUBLASLT_EPILOGUE_DEFAULT;
    case gemm_epilogue::bias: return CUBLASLT_EPILOGUE_BIAS;
    case gemm_epilogue::relu: return CUBLASLT_EPILOGUE_RELU;
    case gemm_epilogue::bias_relu: return CUBLASLT_EPILOGUE_RELU_BIAS;
    case gemm_epilogue::bias_gelu: return CUBLASLT_EPILOGUE_GELU_BIAS;
  }
  return CUBLASLT_EPILOGUE_DEFAULT;
}

cublasLtMatrixLayout_t make_layout(cudaDataType_t type, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                                   int batch, std::int64_t stride) {
  cublasLtMatrixLayout_t l = nullptr;
  CUDABENCH_CHECK_CUBLAS(cublasLtMatrixLayoutCreate(&l, type, static_cast<std::uint64_t>(rows),
                                                    static_cast<std::uint64_t>(cols), ld));
  if (batch > 1) {
    CUDABENCH_CHECK_CUBLAS(
        cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof(batch)));
    CUDABENCH_CHECK_CUBLAS(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET,
                                                            &stride, sizeof(stride)));
  }
  return l;
}
}  // namespace

lt_matmul::lt_matmul(const blaslt_context& ctx, const gemm_shape& s, const gemm_types& t, gemm_epilogue epilogue,
                     const void* bias, cudaDataType_t bias_type)
    : ctx_(&ctx), float_scale_(t.scale == CUDA_R_32F) {
  CUDABENCH_CHECK_CUBLAS(cublasLtMatmulDescCreate(&op_, t.compute, t.scale));
  CUDABENCH_CHECK_CUBLAS(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &s.trans_a, sizeof(s.trans_a)));
  CUDABENCH_CHECK_CUBLAS(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &s.trans_b, sizeof(s.trans_b)));
  const cublasLtEpilogue_t epi = to_lt(epilogue);
  CUDABENCH_CHECK_CUBLAS(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof(epi)));
  if (bias) {
    CUDABENCH_CHECK_CUBLAS(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)));
    CUDABENCH_CHECK_CUBLAS(
        cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof(bias_type)));
  }
  const bool ta = s.trans_a != CUBLAS_OP_N, tb = s.trans_b != CUBLAS_OP_N;
  la_ = make_layout(t.a, ta ? s.k : s.m, ta ? s.m : s.k, s.lda, s.batch, s.stride_a);
  lb_ = make_layout(t.b, tb ? s.n : s.k, tb ? s.k : s.n, s.ldb, s.batch, s.stride_b);
  lc_ = make_layout(t.c, s.m, s.n, s.ldc, s.batch, s.stride_c);

  cublasLtMatmulPreference_t pref = nullptr;
  CUDABENCH_CHECK_CUBLAS(cublasLtMatmulPreferenceCreate(&pref));
  const std::size_t ws = ctx.workspace_bytes();
  CUDABENCH_CHECK_CUBLAS(
      cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws)));
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  const cublasStatus_t st =
      cublasLtMatmulAlgoGetHeuristic(ctx.handle(), op_, la_, lb_, lc_, lc_, pref, 1, &result, &found);
  cublasLtMatmulPreferenceDestroy(pref);
  if (st != CUBLAS_STATUS_SUCCESS || found == 0)
    throw unsupported_error(fmt::format("cuBLASLt has no algorithm for m={} n={} k={} batch={} ({})", s.m, s.n, s.k,
                                        s.batch, cublasGetStatusName(st)));
  algo_ = result.algo;
}

lt_matmul::lt_matmul(lt_matmul&& o) noexcept
    : ctx_(o.ctx_),
      op_(std::exchange(o.op_, nullptr)),
      la_(std::exchange(o.la_, nullptr)),
      lb_(std::exchange(o.lb_, nullptr)),
      lc_(std::exchange(o.lc_, nullptr)),
      algo_(o.algo_),
      float_scale_(o.float_scale_) {}

lt_matmul::~lt_matmul() {
  if (la_) cublasLtMatrixLayoutDestroy(la_);
  if (lb_) cublasLtMatrixLayoutDestroy(lb_);
  if (lc_) cublasLtMatrixLayoutDestroy(lc_);
  if (op_) cublasLtMatmulDescDestroy(op_);
}

void lt_matmul::run(const void* alpha, const void* a, const void* b, const void* beta, const void* c, void* d,
                    cudaStream_t stream) const {
  CUDABENCH_CHECK_CUBLAS(cublasLtMatmul(ctx_->handle(), op_, alpha, a, la_, b, lb_, beta, c, lc_, d, lc_, &algo_,
                                        ctx_->workspace(), ctx_->workspace_bytes(), stream));
}

void lt_matmul::run(const void* a, const void* b, void* d, cudaStream_t stream) const {
  static const float one_f = 1.0f, zero_f = 0.0f;
  static const double one_d = 1.0, zero_d = 0.0;
  const void* alpha = float_scale_ ? static_cast<const void*>(&one_f) : static_cast<const void*>(&one_d);
  const void* beta = float_scale_ ? static_cast<const void*>(&zero_f) : static_cast<const void*>(&zero_d);
  run(alpha, a, b, beta, d, d, stream);
}

lt_matmul make_linear(const blaslt_context& ctx, std::int64_t M, std::int64_t N, std::int64_t K,
                      const gemm_types& types, gemm_epilogue epilogue, const void* bias, cudaDataType_t bias_type) {
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
  return lt_matmul(ctx, s, types, epilogue, bias, bias_type);
}

}  // namespace cudabench
