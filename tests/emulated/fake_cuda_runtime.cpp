// The CUDA runtime calls the emulated tests make (transformer_memory's model, the LLM kernel
// tests), on the host: "device" memory is host memory, copies are memmove, streams are ignored
// (everything is synchronous), and there is one device. The emulated test targets link no cudart.
#include "fake_cuda_runtime.hpp"

#include <cstdlib>
#include <cstring>

#include <cublas_v2.h>
#include <cuda_runtime.h>

namespace fake_cuda {
std::size_t static_shared_bytes = 0;
int opted_in_dynamic_shared_bytes = -1;
}  // namespace fake_cuda

extern "C" {
cudaError_t cudaMalloc(void** p, size_t n) {
  *p = std::calloc(1, n ? n : 1);
  return cudaSuccess;
}
cudaError_t cudaFree(void* p) {
  std::free(p);
  return cudaSuccess;
}
cudaError_t cudaGetDeviceCount(int* n) {  // the emulator is the one "device" (gpu_test_fixture.hpp's check)
  *n = 1;
  return cudaSuccess;
}
cudaError_t cudaGetLastError(void) { return cudaSuccess; }
cudaError_t cudaPeekAtLastError(void) { return cudaSuccess; }
const char* cudaGetErrorString(cudaError_t) { return "emulated CUDA error"; }
const char* cudaGetErrorName(cudaError_t) { return "emulated CUDA error"; }
cudaError_t cudaMemcpy(void* d, const void* s, size_t n, cudaMemcpyKind) {
  std::memmove(d, s, n);
  return cudaSuccess;
}
cudaError_t cudaMemcpyAsync(void* d, const void* s, size_t n, cudaMemcpyKind, cudaStream_t) {
  std::memmove(d, s, n);
  return cudaSuccess;
}
cudaError_t cudaMemsetAsync(void* d, int v, size_t n, cudaStream_t) {
  std::memset(d, v, n);
  return cudaSuccess;
}
cudaError_t cudaMemset(void* d, int v, size_t n) {
  std::memset(d, v, n);
  return cudaSuccess;
}
cudaError_t cudaDeviceSynchronize(void) { return cudaSuccess; }
// The emulator has no shared-memory limit to raise; the request is recorded (fake_cuda_runtime.hpp).
cudaError_t cudaFuncSetAttribute(const void*, cudaFuncAttribute attr, int value) {
  if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) fake_cuda::opted_in_dynamic_shared_bytes = value;
  return cudaSuccess;
}
// __shared__ arrays are host statics here, so the static size is whatever a test sets.
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void*) {
  *attr = cudaFuncAttributes{};
  attr->sharedSizeBytes = fake_cuda::static_shared_bytes;
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
const char* cublasGetStatusName(cublasStatus_t) { return "emulated cuBLAS status"; }
}
