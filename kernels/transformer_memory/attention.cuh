// Multi-head scaled-dot-product attention, flash-attention style (no mask; in train mode
// dropout and the logsumexp, CUDA-core kernel only):
//   O[b, i, h*HD : (h+1)*HD] = softmax_j( Q_bh[i] . K_bh[j] / sqrt(HD) ) V_bh[j]
// Q, K, V and O are row-major token matrices ([batch*seq, ld]); head h is the column slice
// [h*HD, (h+1)*HD) of each, so the packed QKV output of in_proj feeds it without a transpose.
// The [batch, heads, sq, sk] score matrix is never materialised: each thread owns one query row,
// keeps its q and output accumulator in registers and streams K/V tiles through shared memory with
// an online softmax, so memory is O(tokens * d_model) -- the point of the transformer_memory
// workload (at batch 128, seq 512, 8 heads the scores alone would be 1 GiB in fp32).
// Bound: 4*sq*sk*HD FLOPs per (batch, head) on fp32 CUDA cores; K/V tile reads are shared-memory
// broadcasts (every lane reads the same address), so FMA issue is the limit, not bandwidth.
#pragma once
#include <cstdint>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "cudabench/dtype.hpp"

namespace cudabench::kernels::transformer_memory {

// Which kernel computes fp32 attention with head_dim 64 (fp16 and other head_dims always use the
// CUDA-core kernel below). The transformer model times the candidates at setup and keeps the
// fastest (src/workloads/transformer_memory/attention_tuner.hpp); all of them are tested against a CPU reference.
enum class attention_variant {
  cuda_core,        // attention_kernel below: one thread per query row, fp32 FMA
  tf32x3_two_pass,  // attention_tf32x3.cuh: WMMA 3xTF32, max pass then accumulate pass
  tf32x3_flash,     // attention_flash_tf32x3.cuh: mma.sync 3xTF32, one pass, online softmax
};
const char* attention_variant_name(attention_variant v);

struct attention_args {
  const void* q = nullptr;  // first element of head 0 for token 0
  const void* k = nullptr;
  const void* v = nullptr;
  void* o = nullptr;
  std::int64_t ldq = 0, ldk = 0, ldv = 0, ldo = 0;  // row strides in elements
  int batch = 0, heads = 0, head_dim = 0;
  int sq = 0, sk = 0;        // query and key sequence lengths (tokens b*sq .. of Q, b*sk .. of K/V)
  dtype type = dtype::fp32;  // element type of Q, K, V, O: fp32 (float) or fp16 (__half); math is fp32
  // Used for fp32 with head_dim 64 only; everything else runs the CUDA-core kernel.
  attention_variant variant = attention_variant::tf32x3_two_pass;
  // Train mode (transformer_memory mode train), CUDA-core kernel only, whatever `variant` says:
  // dropout on the probabilities as PyTorch's SDPA applies it (P' = P * keep / (1 - p), the
  // softmax normaliser taken before dropout), keep = transformer::dropout_keep(dropout_seed,
  // ((b * heads + h) * sq + i) * sk + j); no mask is stored (PyTorch's memory-efficient kernel
  // regenerates it from its seed). `lse` (may be null): float logsumexp of each score row, at
  // lse[(b * heads + h) * lse_stride + i], what that kernel saves for backward.
  std::uint32_t dropout_threshold = 0;  // 0: no dropout
  float dropout_scale = 1.f;
  std::uint64_t dropout_seed = 0;
  float* lse = nullptr;
  std::int64_t lse_stride = 0;
};

// head_dim must be 16, 32 or 64 (std::invalid_argument otherwise). Dispatches on
// attention_args::variant where it applies (fp32, head_dim 64).
bool attention_head_dim_supported(int head_dim);
void attention_forward(const attention_args& a, cudaStream_t stream);

}  // namespace cudabench::kernels::transformer_memory
