// The CUDA runtime calls the emulated tests make (transformer_memory's model, the LLM kernel
// tests), on the host: "device" memory is host memory, copies are memmove, streams are ignored
// (everything is synchronous), and there is one device. The emulated test targets link no cudart.
#include <cstdlib>
#include <cstring>

#include <cublas_v2.h>
#include <cuda_runtime.h>

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
// The emulator has no shared-memory limit to raise (gemv.cu asks past 48 KB for long rows).
cudaError_t cudaFuncSetAttribute(const void*, cudaFuncAttribute, int) { return cudaSuccess; }
// __shared__ arrays are host statics here, so no kernel has static shared memory to report.
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, const void*) {
  *attr = cudaFuncAttributes{};
  return cudaSuccess;
}
cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
const char* cublasGetStatusName(cublasStatus_t) { return "emulated cuBLAS status"; }
}
