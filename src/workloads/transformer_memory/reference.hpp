// An independent CPU reference of torch.nn.Transformer's forward pass (batch_first, post-norm,
// ReLU, no masks; eval, or train with the dropout masks of kernels/transformer_memory/
// dropout_rng.hpp) in double precision with plain loops -- for validation on small shapes.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "workloads/transformer_memory/config.hpp"

namespace cudabench::transformer {

// `weights` maps state_dict names to row-major values; src [batch, src_len, d_model], tgt
// [batch, tgt_len, d_model]. Returns [batch, tgt_len, d_model].
std::vector<double> reference_forward(const config& cfg, const std::map<std::string, std::vector<double>>& weights,
                                      const std::vector<double>& src, const std::vector<double>& tgt);

}  // namespace cudabench::transformer
