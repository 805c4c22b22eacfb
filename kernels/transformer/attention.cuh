// Multi-head scaled-dot-product attention, flash-attention style (no mask, dropout off):
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

namespace cudabench::kernels {

struct attention_args {
  const void* q = nullptr;  // first element of head 0 for token 0
  const void* k = nullptr;
  const void* v = nullptr;
  void* o = nullptr;
  std::int64_t ldq = 0, ldk = 0, ldv = 0, ldo = 0;  // row strides in elements
  int batch = 0, heads = 0, head_dim = 0;
  int sq = 0, sk = 0;  // query and key sequence lengths (tokens b*sq .. of Q, b*sk .. of K/V)
  bool fp16 = false;   // element type of Q, K, V, O: __half if true, else float (math is fp32)
  // fp32 with head_dim 64 runs on the tensor cores in 3xTF32 (attention_tf32x3.cuh) unless this
  // is false; everything else uses the CUDA-core kernel below.
  bool tensor_cores = true;
};

// head_dim must be 16, 32 or 64 (std::invalid_argument otherwise). Dispatches to the 3xTF32
// tensor-core kernel where it applies (see attention_args::tensor_cores).
bool attention_head_dim_supported(int head_dim);
void attention_forward(const attention_args& a, cudaStream_t stream);

}  // namespace cudabench::kernels
