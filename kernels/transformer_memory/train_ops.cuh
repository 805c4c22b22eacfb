// The element-wise steps of transformer_memory's train mode, each writing what PyTorch's autograd
// would keep (the masks, the residual sums, LayerNorm's statistics) to its own buffer instead of
// working in place as the inference path does:
//   dropout:      out = keep ? y * scale : 0, mask = keep                  (nn.Dropout, train)
//   dropout_add:  sum = x + (keep ? y * scale : 0), mask = keep            (x + dropout(y))
//   layernorm_train: out = LayerNorm(in), and float mean, rstd per row     (F.layer_norm)
// Masks are 1 byte per element like PyTorch's bool masks; keep comes from dropout_keep() on the
// element's index + `index_offset`, so chunks of one tensor draw the mask of the whole tensor. A
// null mask means p = 0: nothing is dropped and nothing stored. Memory-bound, one pass each.
#pragma once
#include <cstdint>

#include <cuda_runtime.h>

#include "cudabench/dtype.hpp"

namespace cudabench::kernels::transformer_memory {

struct dropout_params {
  std::uint8_t* mask = nullptr;  // null: p = 0
  std::uint64_t seed = 0;
  std::uint64_t index_offset = 0;  // index of element 0 in the whole tensor
  std::uint32_t threshold = 0;     // transformer::dropout_threshold(p)
  float scale = 1.f;               // 1 / (1 - p)
};

void dropout(const void* y, void* out, std::int64_t n, const dropout_params& d, dtype type, cudaStream_t stream);
void dropout_add(const void* x, const void* y, void* sum, std::int64_t n, const dropout_params& d, dtype type,
                 cudaStream_t stream);
void layernorm_train(const void* in, void* out, const void* gamma, const void* beta, float* mean, float* rstd,
                     std::int64_t rows, int cols, float eps, dtype type, cudaStream_t stream);

}  // namespace cudabench::kernels::transformer_memory
