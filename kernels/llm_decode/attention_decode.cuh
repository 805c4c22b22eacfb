// Decode attention (flash-decoding) for one new token over the layer's KV cache.
//   out[h][:] = softmax(q[h] · K[kv(h)]^T * scale) · V[kv(h)],  keys 0..*pos inclusive,
//   kv(h) = h / (num_heads / num_kv_heads)  (grouped-query attention).
// The sequence is split into chunks of `chunk` positions across thread blocks so a short,
// batch-1 problem still covers the GPU: block (kv head, split) scores its chunk for every query
// head of the group (K and V are read once per group), and writes an unnormalised partial output
// with its running max and sum; a second kernel merges the splits with log-sum-exp weights.
// The length is read from device memory (*pos), so the grid covers max_len and blocks past the
// current length exit at once: one captured graph serves every step.
// Bound: K and V of the sequence, 2 x num_kv_heads x len x head_dim x 2 bytes per layer
// (Llama-2-7B at 256 tokens: 4 MB per layer, ~1% of the token's weight bytes).
#pragma once
#include <cstddef>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace cudabench::kernels::llm {

struct attn_decode_shape {
  int num_heads = 0;
  int num_kv_heads = 0;
  int head_dim = 0;    // <= 256
  int max_len = 0;     // cache capacity (positions)
  int chunk = 32;      // positions per split
  float scale = 1.0f;  // 1 / sqrt(head_dim)
  __host__ __device__ int max_splits() const { return (max_len + chunk - 1) / chunk; }
};

// Workspace sizes in floats: partial outputs [num_heads][max_splits][head_dim] and their
// (max, sum) pairs [num_heads][max_splits][2].
inline std::size_t attn_decode_partial_floats(const attn_decode_shape& s) {
  return static_cast<std::size_t>(s.num_heads) * s.max_splits() * s.head_dim;
}
inline std::size_t attn_decode_ml_floats(const attn_decode_shape& s) {
  return static_cast<std::size_t>(s.num_heads) * s.max_splits() * 2;
}

// q: [num_heads][head_dim] (rotated); caches: [num_kv_heads][max_len][head_dim]; *pos: index of
// the newest token (already appended); out: [num_heads][head_dim].
template <class T>
void attention_decode(const T* q, const T* k_cache, const T* v_cache, const int* pos, const attn_decode_shape& s,
                      float* partial_out, float* partial_ml, T* out, cudaStream_t stream);

}  // namespace cudabench::kernels::llm
