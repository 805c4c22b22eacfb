// Decode attention (flash-decoding) for one new token, fused with its rotary embedding and its
// KV-cache append: one launch per layer.
//   q[h]  = rope(qkv's q head h, *pos)            (rounded to T as transformers rounds it)
//   K[kv][*pos] = rope(qkv's k head kv, *pos),  V[kv][*pos] = qkv's v head kv   (the append)
//   out[h][:] = softmax(q[h] · K[kv(h)]^T * scale) · V[kv(h)],  keys 0..*pos inclusive,
//   kv(h) = h / (num_heads / num_kv_heads)  (grouped-query attention).
// The sequence is split into chunks of `chunk` positions across thread blocks so a short,
// batch-1 problem still covers the GPU: block (kv head, split) rotates the group's queries itself
// (a few hundred multiplies: cheaper than a kernel boundary), scores its chunk for every query
// head of the group (K and V are read once per group) and keeps an unnormalised partial output
// with its running max and sum. The block whose chunk holds the new position also appends its K
// and V to the cache before reading them. The last block of a KV head to finish (a counter per
// KV head, reset by that block) merges the splits with log-sum-exp weights; a single split
// writes its output directly.
// This replaces three launches per layer (rope/append, split, merge): at 128-256 positions the
// step's attention was ~20 us of latency per layer for ~1 us of bytes.
// The length is read from device memory (*pos), so the grid covers max_len and blocks past the
// current length exit at once: one captured graph serves every step.
// Under programmatic dependent launch the kernel reads *pos, the cached rows before *pos and the
// rotary table before it waits for its predecessor (the QKV projection): those must have been
// written by work that finished before the step began (an earlier graph replay, a memcpy), never
// by the kernels it overlaps. The decode step satisfies this: *pos is advanced by the step's
// last kernel, and each row is appended by the step that produced it.
// Bound: K and V of the sequence, 2 x num_kv_heads x len x head_dim x 2 bytes per layer
// (Llama-2-7B at 2048 tokens: 34 MB per layer, 8 us at the H200's copy bandwidth).
#pragma once
#include <cstddef>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace cudabench::kernels::llm_decode {

struct attn_decode_shape {
  int num_heads = 0;
  int num_kv_heads = 0;
  int head_dim = 0;    // even, <= 256
  int max_len = 0;     // cache capacity (positions)
  int chunk = 32;      // positions per split
  float scale = 1.0f;  // 1 / sqrt(head_dim)
  __host__ __device__ int max_splits() const { return (max_len + chunk - 1) / chunk; }
};

// Workspace sizes: partial outputs [num_heads][max_splits][head_dim] and their (max, sum) pairs
// [num_heads][max_splits][2] in floats; one completion counter per KV head (unsigned), which must
// be zero before the first launch and is zero again after every launch.
inline std::size_t attn_decode_partial_floats(const attn_decode_shape& s) {
  return static_cast<std::size_t>(s.num_heads) * s.max_splits() * s.head_dim;
}
inline std::size_t attn_decode_ml_floats(const attn_decode_shape& s) {
  return static_cast<std::size_t>(s.num_heads) * s.max_splits() * 2;
}
inline std::size_t attn_decode_counters(const attn_decode_shape& s) { return static_cast<std::size_t>(s.num_kv_heads); }

// Dynamic shared memory one block needs; attention_decode throws cuda_error past the device's limit.
std::size_t attn_decode_smem_bytes(const attn_decode_shape& s);

// qkv: the token's fused projection row [q heads | k heads | v heads] (head_dim each), not yet
// rotated (it is only read); table: make_rope_table (rope_kv.cuh) for >= max_len positions;
// caches: [num_kv_heads][max_len][head_dim], positions < *pos already appended; *pos: the new
// token's position (< max_len); out: [num_heads][head_dim].
template <class T>
void attention_decode(const T* qkv, const T* table, T* k_cache, T* v_cache, const int* pos, const attn_decode_shape& s,
                      float* partial_out, float* partial_ml, unsigned* counters, T* out, cudaStream_t stream);

}  // namespace cudabench::kernels::llm_decode
