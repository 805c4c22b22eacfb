// Causal self-attention for the prompt (prefill), batch 1:
//   out[t][h][:] = softmax_{j <= t}(q[t][h] · k[j][kv(h)] * scale) · v[j][kv(h)]
// with q read from the fused qkv rows (already rotated) and K/V from the layer's cache (already
// appended for positions 0..rows-1). Two implementations, both flash-attention shaped (K/V read
// once per query tile, an online softmax per query in fp32, no rows x rows score matrix):
//  - tensor cores (attention_prefill_mma.cu) for head_dim 32/64/96/128: mma.sync with the
//    probabilities rounded to T for P·V, as fused attention kernels do. At Llama-2-7B's
//    2048-token prompt (1.1 TFLOP of attention over 32 layers) the CUDA-core version took 189 ms.
//  - CUDA cores (attention_prefill.cu) for every other head_dim (<= 256): fp32 throughout, 16
//    queries per block, K/V through shared memory in chunks of 32 positions.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace cudabench::kernels::llm_decode {

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

// The CUDA-core kernel alone, for any head_dim <= 256 (the fallback; tests compare the paths).
template <class T>
void attention_prefill_cuda_cores(const T* qkv, const T* k_cache, const T* v_cache, const attn_prefill_shape& s, T* out,
                                  cudaStream_t stream);

}  // namespace cudabench::kernels::llm_decode
