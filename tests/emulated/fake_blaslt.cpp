// lt_matmul on the host, for the emulated test: column-major D = alpha op(A) op(B) + beta C (+ bias
// per row of D) (+ ReLU), as blaslt.hpp documents it; fp32 storage, double accumulation. The
// epilogue and bias live behind op_ (an opaque pointer in the header, unused here otherwise).
#include <stdexcept>
#include <vector>

#include "cudabench/gpu/blaslt.hpp"
namespace cudabench {
namespace {
struct info {
  gemm_epilogue epi;
  const float* bias;
};
}  // namespace
blaslt_context::blaslt_context(std::size_t) {}
blaslt_context::~blaslt_context() {}
gemm_types gemm_types_of(dtype) { return gemm_types{}; }
lt_matmul::lt_matmul(const blaslt_context& ctx, const gemm_shape& s, const gemm_types&, gemm_epilogue e,
                     const void* bias, cudaDataType_t)
    : ctx_(&ctx), shape_(s) {
  op_ = reinterpret_cast<cublasLtMatmulDesc_t>(new info{e, static_cast<const float*>(bias)});
}
lt_matmul::~lt_matmul() { delete reinterpret_cast<info*>(op_); }
lt_matmul::lt_matmul(lt_matmul&& o) noexcept : ctx_(o.ctx_), shape_(o.shape_), op_(o.op_) { o.op_ = nullptr; }
void lt_matmul::run(const void* alpha, const void* a, const void* b, const void* beta, const void* c, void* d,
                    cudaStream_t) const {
  const gemm_shape& s = shape_;
  if (s.batch > 1) throw std::logic_error("fake lt_matmul: batched GEMMs are not emulated");
  const info& in = *reinterpret_cast<const info*>(op_);
  const float al = *static_cast<const float*>(alpha), be = *static_cast<const float*>(beta);
  const float* A = static_cast<const float*>(a);
  const float* B = static_cast<const float*>(b);
  const float* C = static_cast<const float*>(c);
  float* D = static_cast<float*>(d);
  const bool ta = s.trans_a != CUBLAS_OP_N, tb = s.trans_b != CUBLAS_OP_N;
  std::vector<float> out(static_cast<std::size_t>(s.m * s.n));
  for (std::int64_t j = 0; j < s.n; ++j)
    for (std::int64_t i = 0; i < s.m; ++i) {
      double acc = 0;
      for (std::int64_t p = 0; p < s.k; ++p) {
        const float av = ta ? A[p + i * s.lda] : A[i + p * s.lda];
        const float bv = tb ? B[j + p * s.ldb] : B[p + j * s.ldb];
        acc += static_cast<double>(av) * bv;
      }
      double v = al * acc + (be != 0 ? be * C[i + j * s.ldc] : 0.0);
      if (in.bias) v += in.bias[i];
      if (in.epi == gemm_epilogue::relu || in.epi == gemm_epilogue::bias_relu) v = v > 0 ? v : 0;
      out[i + j * s.m] = static_cast<float>(v);
    }
  for (std::int64_t j = 0; j < s.n; ++j)
    for (std::int64_t i = 0; i < s.m; ++i) D[i + j * s.ldc] = out[i + j * s.m];
}
void lt_matmul::run(const void* a, const void* b, void* d, cudaStream_t st) const {
  const float one = 1, zero = 0;
  run(&one, a, b, &zero, d, d, st);
}
}  // namespace cudabench
