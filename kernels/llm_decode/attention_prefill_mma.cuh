// The tensor-core path of attention_prefill (attention_prefill_mma.cu): used by attention_prefill()
// for the head dims it is built for, and called directly by the tests that compare the two paths.
#pragma once
#include <cuda_runtime.h>

#include "kernels/llm_decode/attention_prefill.cuh"

namespace cudabench::kernels::llm_decode {

// head_dim 32, 64, 96 or 128 and 16-byte rows (qkv_stride a multiple of 8 elements).
bool attention_prefill_mma_supports(const attn_prefill_shape& s);

// Launches and returns true when the shape is supported and every pointer is 16-byte aligned;
// returns false (nothing launched) otherwise.
template <class T>
bool attention_prefill_mma(const T* qkv, const T* k_cache, const T* v_cache, const attn_prefill_shape& s, T* out,
                           cudaStream_t stream);

}  // namespace cudabench::kernels::llm_decode
