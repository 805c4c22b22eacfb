// Workload kind `transformer_memory`: peak device memory and time of one torch.nn.Transformer
// forward pass (default shape: d_model 512, 8 heads, 6+6 layers, feed-forward 2048) on
// [batch, seq_len, 512] source and target, batch_first, no masks (`mode: train` keeps what
// autograd saves for backward; `backward: true` runs the backward too). See model.hpp for the
// memory plan.
#pragma once
#include <memory>

#include "cudabench/gpu/workload.hpp"

namespace cudabench {

std::unique_ptr<workload> make_transformer_memory(const workload_spec& spec);

}  // namespace cudabench
