// Workload kind `train_step`: one mixed-precision training step (fp16/bf16 compute, fp32 master
// weights, dynamic loss scaling, AdamW) of a bias-free ReLU MLP on a fixed synthetic regression
// target. See mlp_trainer.hpp.
#pragma once
#include <memory>

#include "cudabench/gpu/workload.hpp"

namespace cudabench {

std::unique_ptr<workload> make_train_step(const workload_spec& spec);

}  // namespace cudabench
