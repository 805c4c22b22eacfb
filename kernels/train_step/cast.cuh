// Element-wise fp32 -> fp16 / bf16 conversion (round to nearest even), e.g. master weights to the
// compute copies at setup, or an fp32 checkpoint to an fp16 model. Memory-bound: 4 bytes read and
// 2 written per element.
#pragma once
#include <cstddef>

#include <cuda_runtime.h>

#include "cudabench/dtype.hpp"

namespace cudabench::kernels::train_step {

// dst: __half* (kind fp16) or __nv_bfloat16* (kind bf16, the only other kind), `n` elements.
void cast_from_float(void* dst, const float* src, std::size_t n, dtype kind, cudaStream_t stream);

}  // namespace cudabench::kernels::train_step
