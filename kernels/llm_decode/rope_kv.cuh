// Rotary position embedding on q and k, and the KV-cache append, in one pass over the fused
// q/k/v projection output of `rows` tokens.
//   qkv row layout: [q heads (num_heads x head_dim) | k heads (num_kv_heads x head_dim) | v heads]
//   q is rotated in place; k (rotated) and v are written to the layer's cache at the token's
//   position, cache layout [num_kv_heads][max_len][head_dim].
// RoPE follows transformers' Llama (rotate_half): element i pairs with i + head_dim/2, angle
// pos * theta^(-2i/head_dim); products and sums rounded to T as transformers rounds them.
// cos/sin come from a table (make_rope_table) computed in double on the host and rounded once to
// T, not from cosf/sinf of an fp32 angle: pos * inv_freq in fp32 errs by up to |angle| * 2^-23
// (~2e-3 rad at position 32767, 8x fp16's own rounding of cos), an error that grows with the
// position; from the table the only error is the storage rounding, at every position. The table
// read (4 bytes per rotation, L2-resident) is also cheaper than powf + sincosf per rotation.
// Positions: prefill row r is position r; decode (rows = 1) reads its position from device memory
// (*pos), so one captured graph serves every step. Bound: bytes, ~40 KB per Llama-2-7B token (q and
// k read and written, v copied): 82 MB per layer for a 2048-token prefill, ~20 us at copy
// bandwidth. Shapes with head_dim a multiple of 16 and 16-byte aligned buffers (every Llama) run
// a kernel of 16-byte accesses; others one of 2-byte accesses (rope_kv.cu).
#pragma once
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace cudabench::kernels::llm_decode {

struct rope_kv_shape {
  int rows = 0;        // tokens
  int qkv_stride = 0;  // elements between consecutive tokens' rows of qkv
  int num_heads = 0;
  int num_kv_heads = 0;
  int head_dim = 0;  // even
  int max_len = 0;   // cache capacity in positions
};

// The rotary factors of positions 0..max_len-1 (host, double precision): element 2 (p head_dim/2
// + i) is T(cos(p theta^(-2i/head_dim))), the next one T(sin(...)), each rounded to nearest
// from double. max_len x head_dim elements; upload once, pass to rope_kv_append.
template <class T>
std::vector<T> make_rope_table(int max_len, int head_dim, double theta);

// `table`: make_rope_table(>= max_len, head_dim, theta) on the device (4-byte aligned).
// `pos` null: row r is position r. Otherwise rows must be 1 and the position is *pos (< max_len).
template <class T>
void rope_kv_append(T* qkv, const rope_kv_shape& s, const T* table, const int* pos, T* k_cache, T* v_cache,
                    cudaStream_t stream);

}  // namespace cudabench::kernels::llm_decode
