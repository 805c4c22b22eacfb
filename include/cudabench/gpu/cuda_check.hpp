// CUDA/cuBLAS/cuDNN call checking. A failed call throws cuda_error carrying the call's text,
// file:line and the library's error name; allocation failures throw oom_error instead so the
// runner can record status `oom`. Usage: CUDABENCH_CHECK_CUDA(cudaMemcpyAsync(...));
// after a kernel launch: CUDABENCH_CHECK_LAUNCH();
#pragma once
#include <string>

#include <cuda_runtime.h>

#include "cudabench/errors.hpp"

namespace cudabench {

class cuda_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] void throw_cuda_error(cudaError_t err, const char* expr, const char* file, int line);
[[noreturn]] void throw_cublas_error(int status, const char* expr, const char* file, int line);
[[noreturn]] void throw_cudnn_error(int status, const char* expr, const char* file, int line);

}  // namespace cudabench

#define CUDABENCH_CHECK_CUDA(expr)                                                                               \
  do {                                                                                                           \
    cudaError_t cudabench_err_ = (expr);                                                                         \
    if (cudabench_err_ != cudaSuccess) ::cudabench::throw_cuda_error(cudabench_err_, #expr, __FILE__, __LINE__); \
  } while (0)

#define CUDABENCH_CHECK_LAUNCH() CUDABENCH_CHECK_CUDA(cudaGetLastError())

#define CUDABENCH_CHECK_CUBLAS(expr)                                                                   \
  do {                                                                                                 \
    int cudabench_st_ = static_cast<int>(expr);                                                        \
    if (cudabench_st_ != 0) ::cudabench::throw_cublas_error(cudabench_st_, #expr, __FILE__, __LINE__); \
  } while (0)

#define CUDABENCH_CHECK_CUDNN(expr)                                                                   \
  do {                                                                                                \
    int cudabench_st_ = static_cast<int>(expr);                                                       \
    if (cudabench_st_ != 0) ::cudabench::throw_cudnn_error(cudabench_st_, #expr, __FILE__, __LINE__); \
  } while (0)
