// Causal self-attention for the prompt (prefill), batch 1:
//   out[t][h][:] = softmax_{j <= t}(q[t][h] · k[j][kv(h)] * scale) · v[j][kv(h)]
// with q read from the fused qkv rows (already rotated) and K/V from the layer's cache (already
// appended for positions 0..rows-1). Flash-attention shaped on CUDA cores: a block owns one head
// and a tile of 16 queries, streams K/V in chunks of 32 positions through shared memory, and keeps
// an online softmax per query in registers, so K/V are read once per query tile (not once per
// query) and no rows x rows score matrix is stored. For Llama-2-7B's 128-token prompt that is
// 2 x 128 x 128 x 128 x 32 x 2 = 268 MFLOP and ~1 MB of K/V per layer: a few microseconds.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace cudabench::kernels::llm {

struct attn_prefill_shape {
  int rows = 0;        // prompt tokens (positions 0..rows-1)
  int qkv_stride = 0;  // elements between consecutive tokens' qkv rows
  int num_heads = 0;
  int num_kv_heads = 0;
  int head_dim = 0;  // <= 256
  int max_len = 0;   // cache capacity (positions)
  float scale = 1.0f;
};

// qkv: [rows][qkv_stride], q heads first; caches [num_kv_heads][max_len][head_dim];
// out: [rows][num_heads * head_dim].
template <class T>
void attention_prefill(const T* qkv, const T* k_cache, const T* v_cache, const attn_prefill_shape& s, T* out,
                       cudaStream_t stream);

}  // namespace cudabench::kernels::llm
