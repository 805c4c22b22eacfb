// Indices into the saved lists (saved_tensors.hpp), shared by the train-mode forward
// (model_train.cpp), which writes them, and the backward (model_backward.cpp), which reads them.
// The tail of every sub-layer is mask, sum, stats, norm output, starting at `tail`.
#pragma once
#include <cstddef>

namespace cudabench::transformer::saved_index {

constexpr std::size_t sa_qkv = 0, sa_out = 1, sa_lse = 2, sa_proj_in = 3, sa_tail = 4;
constexpr std::size_t ca_q = 0, ca_kv = 1, ca_out = 2, ca_lse = 3, ca_proj_in = 4, ca_tail = 5;
constexpr std::size_t ff_relu = 0, ff_mask = 1, ff_drop = 2, ff_tail = 3;
constexpr std::size_t tail_mask = 0, tail_sum = 1, tail_stats = 2, tail_out = 3;

}  // namespace cudabench::transformer::saved_index
