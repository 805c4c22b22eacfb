// See blaslt.hpp.
#include "cudabench/gpu/blaslt.hpp"

#include <utility>

#include <fmt/format.h>

#include "cudabench/gpu/cuda_check.hpp"
#include "cudabench/gpu/dtype_cuda.hpp"

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
  CUDABENCH_CHECK_CUBLAS(
      cublasLtMatrixLayoutCreate(&l, type, static_cast<std::uint64_t>(rows), static_cast<std::uint64_t>(cols), ld));
  if (batch > 1) {
    // Destroy `l` ourselves if an attribute write fails: nothing owns it yet.
    const cublasStatus_t s1 =
        cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof(batch));
    const cublasStatus_t s2 =
        cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof(stride));
    if (s1 != CUBLAS_STATUS_SUCCESS || s2 != CUBLAS_STATUS_SUCCESS) {
      cublasLtMatrixLayoutDestroy(l);
      CUDABENCH_CHECK_CUBLAS(s1 != CUBLAS_STATUS_SUCCESS ? s1 : s2);
    }
  }
  return l;
}

std::size_t element_bytes(cudaDataType_t t) {
  switch (t) {
    case CUDA_R_16F:
    case CUDA_R_16BF: return 2;
    case CUDA_R_8F_E4M3:
    case CUDA_R_8F_E5M2: return 1;
    case CUDA_R_64F: return 8;
    default: return 4;
  }
}

// The alignment every batch's base pointer has: cudaMalloc gives 256 bytes, a batch stride may give
// less. cuBLASLt assumes 256 unless told, and would pick vectorised kernels that fault otherwise.
std::uint32_t batch_alignment(std::int64_t stride_elements, std::size_t element_bytes, int batch) {
  std::uint32_t a = 256;
  const std::uint64_t stride = static_cast<std::uint64_t>(stride_elements) * element_bytes;
  if (batch > 1)
    while (a > 1 && stride % a != 0) a /= 2;
  return a;
}
}  // namespace

lt_matmul::lt_matmul(const blaslt_context& ctx, const gemm_shape& s, const gemm_types& t, gemm_epilogue epilogue,
                     const void* bias, cudaDataType_t bias_type)
    : lt_matmul(ctx, s, t, epilogue, bias, bias_type, true) {}

lt_matmul lt_matmul::describe(const blaslt_context& ctx, const gemm_shape& shape, const gemm_types& types) {
  return lt_matmul(ctx, shape, types, gemm_epilogue::none, nullptr, CUDA_R_32F, false);
}

lt_matmul::lt_matmul(const blaslt_context& ctx, const gemm_shape& s, const gemm_types& t, gemm_epilogue epilogue,
                     const void* bias, cudaDataType_t bias_type, bool pick_algorithm)
    : ctx_(&ctx),
      shape_(s),
      a_bytes_(element_bytes(t.a)),
      b_bytes_(element_bytes(t.b)),
      c_bytes_(element_bytes(t.c)),
      float_scale_(t.scale == CUDA_R_32F) {
  CUDABENCH_CHECK_CUBLAS(cublasLtMatmulDescCreate(&op_, t.compute, t.scale));
  CUDABENCH_CHECK_CUBLAS(
      cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &s.trans_a, sizeof(s.trans_a)));
  CUDABENCH_CHECK_CUBLAS(
      cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &s.trans_b, sizeof(s.trans_b)));
  // fp8 keeps the default scales (1.0) and no fast accumulation, like torch._scaled_mm's defaults.
  if (epilogue != gemm_epilogue::none) {
    const cublasLtEpilogue_t epi = to_lt(epilogue);
    CUDABENCH_CHECK_CUBLAS(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof(epi)));
  }
  if (bias) {
    CUDABENCH_CHECK_CUBLAS(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof(bias)));
    CUDABENCH_CHECK_CUBLAS(
        cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof(bias_type)));
  }
  const bool ta = s.trans_a != CUBLAS_OP_N, tb = s.trans_b != CUBLAS_OP_N;
  la_ = make_layout(t.a, ta ? s.k : s.m, ta ? s.m : s.k, s.lda, s.batch, s.stride_a);
  lb_ = make_layout(t.b, tb ? s.n : s.k, tb ? s.k : s.n, s.ldb, s.batch, s.stride_b);
  lc_ = make_layout(t.c, s.m, s.n, s.ldc, s.batch, s.stride_c);
  if (!pick_algorithm) return;

  cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
  const std::vector<cublasLtMatmulAlgo_t> found = candidates(1, &st);
  if (found.empty())
    throw unsupported_error(fmt::format("cuBLASLt has no algorithm for m={} n={} k={} batch={} ({})", s.m, s.n, s.k,
                                        s.batch, cublasGetStatusName(st)));
  algo_ = found[0];
}

std::vector<cublasLtMatmulAlgo_t> lt_matmul::candidates(int max, cublasStatus_t* status) const {
  cublasLtMatmulPreference_t pref = nullptr;
  CUDABENCH_CHECK_CUBLAS(cublasLtMatmulPreferenceCreate(&pref));
  const std::size_t ws = ctx_->workspace_bytes();
  cublasStatus_t st =
      cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws));
  const std::uint32_t align_c = batch_alignment(shape_.stride_c, c_bytes_, shape_.batch);
  const std::pair<cublasLtMatmulPreferenceAttributes_t, std::uint32_t> alignments[] = {
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, batch_alignment(shape_.stride_a, a_bytes_, shape_.batch)},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, batch_alignment(shape_.stride_b, b_bytes_, shape_.batch)},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, align_c},
      {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, align_c}};
  for (const auto& [attr, value] : alignments)
    if (st == CUBLAS_STATUS_SUCCESS) st = cublasLtMatmulPreferenceSetAttribute(pref, attr, &value, sizeof(value));
  std::vector<cublasLtMatmulHeuristicResult_t> heur(static_cast<std::size_t>(max));
  int found = 0;
  if (st == CUBLAS_STATUS_SUCCESS)
    st = cublasLtMatmulAlgoGetHeuristic(ctx_->handle(), op_, la_, lb_, lc_, lc_, pref, max, heur.data(), &found);
  cublasLtMatmulPreferenceDestroy(pref);
  std::vector<cublasLtMatmulAlgo_t> out;
  if (st == CUBLAS_STATUS_SUCCESS)
    for (int i = 0; i < found; ++i)
      if (heur[i].state == CUBLAS_STATUS_SUCCESS && heur[i].workspaceSize <= ws) out.push_back(heur[i].algo);
  if (status) *status = st;
  return out;
}

lt_matmul::lt_matmul(lt_matmul&& o) noexcept
    : ctx_(o.ctx_),
      shape_(o.shape_),
      a_bytes_(o.a_bytes_),
      b_bytes_(o.b_bytes_),
      c_bytes_(o.c_bytes_),
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
  CUDABENCH_CHECK_CUBLAS(try_run(algo_, a, b, d, stream));
}

cublasStatus_t lt_matmul::try_run(const cublasLtMatmulAlgo_t& algo, const void* a, const void* b, void* d,
                                  cudaStream_t stream) const {
  static const float one_f = 1.0f, zero_f = 0.0f;  // host pointer mode; beta = 0 so C is never read
  static const double one_d = 1.0, zero_d = 0.0;
  const void* alpha = float_scale_ ? static_cast<const void*>(&one_f) : static_cast<const void*>(&one_d);
  const void* beta = float_scale_ ? static_cast<const void*>(&zero_f) : static_cast<const void*>(&zero_d);
  return cublasLtMatmul(ctx_->handle(), op_, alpha, a, la_, b, lb_, beta, d, lc_, d, lc_, &algo, ctx_->workspace(),
                        ctx_->workspace_bytes(), stream);
}

}  // namespace cudabench
