// What the fake CUDA runtime (fake_cuda_runtime.cpp) lets a test set and see, for the calls whose
// answer on a GPU depends on the compiled kernel.
#pragma once
#include <cstddef>

namespace fake_cuda {
// cudaFuncGetAttributes' sharedSizeBytes for every kernel (0 unless a test sets it).
extern std::size_t static_shared_bytes;
// The last value given to cudaFuncSetAttribute(..., cudaFuncAttributeMaxDynamicSharedMemorySize, v);
// -1 until one is.
extern int opted_in_dynamic_shared_bytes;
}  // namespace fake_cuda
