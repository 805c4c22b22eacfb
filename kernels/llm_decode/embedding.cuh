// Token embedding lookup: out[r][:] = table[token_r][:], for `rows` tokens.
// Prefill: token_r = tokens[r]. Decode: one row whose token is tokens[*pos], read on the device so
// a captured CUDA graph serves every step. Bound: rows x hidden x 2 bytes copied (8 KB per decode
// token for Llama-2-7B): launch latency, not bandwidth, is its cost.
#pragma once
#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace cudabench::kernels::llm_decode {

// `pos` null: prefill rows 0..rows-1 take tokens[0..rows-1]; otherwise rows must be 1 and the
// token is tokens[*pos].
template <class T>
void embedding(const T* table, int vocab, int hidden, const std::int32_t* tokens, const int* pos, int rows, T* out,
               cudaStream_t stream);

}  // namespace cudabench::kernels::llm_decode
