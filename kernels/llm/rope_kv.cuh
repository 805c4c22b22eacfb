// Rotary position embedding on q and k, and the KV-cache append, in one pass over the fused
// q/k/v projection output of `rows` tokens.
//   qkv row layout: [q heads (num_heads x head_dim) | k heads (num_kv_heads x head_dim) | v heads]
//   q is rotated in place; k (rotated) and v are written to the layer's cache at the token's
//   position, cache layout [num_kv_heads][max_len][head_dim].
// RoPE follows transformers' Llama (rotate_half): element i pairs with i + head_dim/2, angle
// pos * theta^(-2i/head_dim) in fp32, cos/sin rounded to T, products and sums rounded to T.
// Positions: prefill row r is position r; decode (rows = 1) reads its position from device memory
// (*pos), so one captured graph serves every step. Bound: a few KB per token: latency.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace cudabench::kernels::llm {

struct rope_kv_shape {
  int rows = 0;          // tokens
  int qkv_stride = 0;    // elements between consecutive tokens' rows of qkv
  int num_heads = 0;
  int num_kv_heads = 0;
  int head_dim = 0;      // even
  int max_len = 0;       // cache capacity in positions
  float rope_theta = 10000.0f;
};

// `pos` null: row r is position r. Otherwise rows must be 1 and the position is *pos (< max_len).
template <class T>
void rope_kv_append(T* qkv, const rope_kv_shape& s, const int* pos, T* k_cache, T* v_cache, cudaStream_t stream);

}  // namespace cudabench::kernels::llm
