// fp32 attention on the tensor cores with 3xTF32 (the same math as attention.cuh, no mask):
// each fp32 operand x is split into hi = tf32(x) and lo = tf32(x - hi), and a product is
// accumulated as lo*hi + hi*lo + hi*hi in fp32, which keeps ~fp32 accuracy (the dropped lo*lo term
// is ~2^-22 relative) at tensor-core speed -- what PyTorch's memory-efficient SDPA does for fp32
// (CUTLASS OpMultiplyAddFastF32).
// Two passes over the keys per 64-query block: pass 1 finds each query's max score, pass 2
// accumulates exp(s - max) * V and the row sums. The extra QK^T pass (1.5x the FLOPs) avoids
// rescaling the WMMA output accumulators, whose element-to-row mapping is opaque.
// Layout as attention.cuh: row-major token matrices, head h = columns [64h, 64h+64).
// Bound: 6*sq*sk*64 useful FLOPs per (batch, head) (two QK^T passes + PV), each issued as three
// TF32 MMAs, so ~1/3 of the TF32 tensor-core rate at best; fragments are loaded from shared
// memory with WMMA, which rather than the MMA units is the likely limit.
// Supports head_dim 64 only (the nn.Transformer default).
#pragma once
#include <cuda_runtime.h>

#include "kernels/transformer_memory/attention.cuh"

namespace cudabench::kernels::transformer_memory {

// a.type must be fp32 and a.head_dim 64 (std::invalid_argument otherwise).
void attention_forward_tf32x3(const attention_args& a, cudaStream_t stream);

}  // namespace cudabench::kernels::transformer_memory
