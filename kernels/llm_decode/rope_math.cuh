// The one rotation rule of rotary embeddings, shared by the prefill pass (rope_kv.cu) and the
// fused decode attention (attention_decode.cu) so both round exactly alike (include from .cu files).
// transformers' Llama (rotate_half): element i pairs with i + head_dim/2;
//   out_i        = x_i * cos - x_{i+half} * sin
//   out_{i+half} = x_{i+half} * cos + x_i * sin
// with each product and the sum rounded to T where transformers' fp16/bf16 tensors round them.
#pragma once
#include <cstdint>

#include "kernels/llm_decode/device_utils.cuh"

namespace cudabench::kernels::llm_decode {

// `factor`: one (cos, sin) pair of make_rope_table (rope_kv.cuh), already T values.
template <class T>
__device__ __forceinline__ void rotate_pair(float x1, float x2, std::uint32_t factor, T& o1, T& o2) {
  const float2 cs = pair_to_float2(factor, T{});
  const float c = cs.x, sn = cs.y;
  o1 = from_float<T>(round_to<T>(x1 * c) + round_to<T>(-x2 * sn));
  o2 = from_float<T>(round_to<T>(x2 * c) + round_to<T>(x1 * sn));
}

}  // namespace cudabench::kernels::llm_decode
