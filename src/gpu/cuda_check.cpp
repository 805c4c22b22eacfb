#include "cudabench/gpu/cuda_check.hpp"

#include <cublas_v2.h>
#include <fmt/format.h>
#ifdef CUDABENCH_HAVE_CUDNN
#include <cudnn.h>
#endif

namespace cudabench {

void throw_cuda_error(cudaError_t err, const char* expr, const char* file, int line) {
  (void)cudaGetLastError();  // clear a sticky-free error so later calls are not blamed
  const std::string msg =
      fmt::format("{} failed: {} ({}) at {}:{}", expr, cudaGetErrorName(err), cudaGetErrorString(err), file, line);
  if (err == cudaErrorMemoryAllocation) throw oom_error(msg, 0);
  throw cuda_error(msg);
}

void throw_cublas_error(int status, const char* expr, const char* file, int line) {
  const auto st = static_cast<cublasStatus_t>(status);
  const std::string msg = fmt::format("{} failed: {} at {}:{}", expr, cublasGetStatusName(st), file, line);
  if (st == CUBLAS_STATUS_ALLOC_FAILED) throw oom_error(msg, 0);
  if (st == CUBLAS_STATUS_NOT_SUPPORTED || st == CUBLAS_STATUS_ARCH_MISMATCH) throw unsupported_error(msg);
  throw cuda_error(msg);
}

void throw_cudnn_error(int status, const char* expr, const char* file, int line) {
#ifdef CUDABENCH_HAVE_CUDNN
  const auto st = static_cast<cudnnStatus_t>(status);
  const std::string msg = fmt::format("{} failed: {} at {}:{}", expr, cudnnGetErrorString(st), file, line);
  if (st == CUDNN_STATUS_ALLOC_FAILED) throw oom_error(msg, 0);
  if (st == CUDNN_STATUS_NOT_SUPPORTED || st == CUDNN_STATUS_ARCH_MISMATCH) throw unsupported_error(msg);
  throw cuda_error(msg);
#else
  throw cuda_error(fmt::format("{} failed: cuDNN status {} at {}:{}", expr, status, file, line));
#endif
}

}  // namespace cudabench
