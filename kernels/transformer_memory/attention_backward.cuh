// The backward of train mode's attention (attention.cuh's CUDA-core kernel with dropout and
// logsumexp), fp32, as PyTorch's memory-efficient SDPA backward does it: nothing of size
// [batch, heads, sq, sk] was saved, so each probability is regenerated from q, k and the saved
// logsumexp, P_ij = exp(q_i . k_j / sqrt(HD) - lse_i), and its dropout decision from the same
// hash and element index as the forward (dropout_rng.hpp). With dO the output's gradient:
//   delta_i = dO_i . O_i                       (= sum_j P_ij dP_ij, dropout included)
//   dV_j    = sum_i P'_ij dO_i                 (P' = P * keep / (1 - p), what multiplied V)
//   dP_ij   = keep_ij / (1 - p) * dO_i . V_j
//   dS_ij   = P_ij (dP_ij - delta_i)
//   dQ_i    = scale sum_j dS_ij K_j,   dK_j = scale sum_i dS_ij Q_i
// Correctness first: one thread per query row (dQ) and one per key row (dK, dV), each looping
// over the whole other sequence on CUDA cores, recomputing every score twice -- about 2.5x the
// forward kernel's FLOPs at far lower efficiency (no tiling in shared memory, dK/dV accumulators
// spill at head_dim 64). A tiled tensor-core kernel is the obvious next step.
#pragma once
#include <cstdint>

#include <cuda_runtime.h>

namespace cudabench::kernels::transformer_memory {

struct attention_backward_args {
  const float* q = nullptr;  // as attention_args: head h is the column slice [h*HD, (h+1)*HD)
  const float* k = nullptr;
  const float* v = nullptr;
  const float* o = nullptr;     // the forward's output
  const float* dout = nullptr;  // dL/dO, same layout as o
  const float* lse = nullptr;   // lse[(b * heads + h) * lse_stride + i], natural log
  std::int64_t lse_stride = 0;
  float* dq = nullptr;  // written, not accumulated
  float* dk = nullptr;
  float* dv = nullptr;
  float* delta = nullptr;  // scratch, batch * heads * sq floats
  std::int64_t ldq = 0, ldk = 0, ldv = 0, ldo = 0, lddo = 0, lddq = 0, lddk = 0, lddv = 0;
  int batch = 0, heads = 0, head_dim = 0, sq = 0, sk = 0;
  std::uint32_t dropout_threshold = 0;  // 0: no dropout
  float dropout_scale = 1.f;
  std::uint64_t dropout_seed = 0;
};

// head_dim 16, 32 or 64 (std::invalid_argument otherwise).
void attention_backward(const attention_backward_args& a, cudaStream_t stream);

}  // namespace cudabench::kernels::transformer_memory
