// fp32 attention on the tensor cores in 3xTF32, single pass over the keys (flash-attention
// style online softmax), the same math as attention.cuh (no mask):
//   O[b, i, h*64 : h*64+64] = softmax_j( Q_bh[i] . K_bh[j] / 8 ) V_bh[j]
// Each fp32 operand x is split into hi = tf32(x) and lo = tf32(x - hi) and a product is
// accumulated as lo*hi + hi*lo + hi*hi in fp32 (~fp32 accuracy; the dropped lo*lo term is ~2^-22
// relative), as PyTorch's memory-efficient SDPA does for fp32.
// Unlike attention_tf32x3.cuh (WMMA, two passes) it issues raw mma.sync m16n8k8 TF32, whose
// register layout is documented, so the score tile stays in registers: the running max and sum
// rescale the output accumulators in place, and P feeds the P.V MMA without a shared-memory trip.
// Layout as attention.cuh: row-major token matrices, head h = columns [64h, 64h+64).
// Bound: 4*sq*sk*64 useful FLOPs per (batch, head), each issued as three TF32 MMAs (so <= 1/3 of
// the TF32 mma.sync rate); the B-fragment loads and tf32 splits from shared memory are of the
// same order of instructions as the MMAs, so issue rate, not memory, is the limit.
// Supports head_dim 64 only; needs sm_80+.
#pragma once
#include <cuda_runtime.h>

#include "kernels/transformer_memory/attention.cuh"

namespace cudabench::kernels::transformer_memory {

// a.type must be fp32, a.head_dim 64 and rows 8-byte aligned (std::invalid_argument otherwise).
void attention_forward_flash_tf32x3(const attention_args& a, cudaStream_t stream);

}  // namespace cudabench::kernels::transformer_memory
