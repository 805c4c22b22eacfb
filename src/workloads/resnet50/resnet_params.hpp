// ResNet-50 parameters on the host, in torchvision's raw form (conv weights OIHW, batch-norm
// gamma/beta/running mean/running var, fc), and batch-norm folding. Random weights and checkpoint
// weights both produce raw_params, so every path goes through the same folding code, and the naive
// reference (which applies batch-norm separately) sees exactly the numbers the model folded.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "workloads/resnet50/resnet_arch.hpp"

namespace cudabench::resnet {

struct bn_params {
  std::vector<float> gamma, beta, mean, var;  // per output channel
};

struct raw_params {
  std::vector<std::vector<float>> conv_w;  // per arch::convs entry, [out_c, in_c, k, k]
  std::vector<bn_params> bn;               // per arch::convs entry
  std::vector<float> fc_w;                 // [num_classes, features]
  std::vector<float> fc_b;                 // [num_classes]
};

// Seeded, torchvision-shaped random parameters that keep activations finite and O(1) through all
// 16 blocks: He-uniform convolutions, batch-norm near identity, the last batch-norm of each
// bottleneck scaled down (as in trained networks) so the residual stream does not grow.
raw_params random_params(const arch& a, std::uint64_t seed);

// Reads every tensor by its state_dict name from a safetensors file (F32, F16 or BF16). Throws
// input_error naming the file and tensor on a missing tensor, a wrong dtype or a wrong shape.
raw_params load_params(const arch& a, const std::string& path);

// Batch-norm folded into the convolution (eval mode): w' = w * g, b' = beta - mean * g with
// g = gamma / sqrt(var + eps). Computed in double, stored as float.
struct folded_conv {
  std::vector<float> w;  // [out_c, in_c, k, k]
  std::vector<float> b;  // [out_c]
};
constexpr double bn_eps = 1e-5;
folded_conv fold_batchnorm(const conv_spec& c, const std::vector<float>& w, const bn_params& bn);

}  // namespace cudabench::resnet
