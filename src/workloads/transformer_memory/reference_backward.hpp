// An independent CPU reference of the backward pass of torch.nn.Transformer in training mode
// (batch_first, post-norm, ReLU, no masks, dropout from dropout_rng.hpp's hash as the kernels draw
// it), in double precision with plain loops: the gradients of L = sum(out * G) with respect to
// every parameter, for validating the GPU backward on small shapes. tests/reference checks it
// against finite differences.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "workloads/transformer_memory/config.hpp"

namespace cudabench::transformer {

// The branch each ReLU input took, per feed-forward block, keyed by its layer's state_dict prefix
// ("encoder.layers.0.", "decoder.layers.1."): 1 where linear1's output was > 0, in the block's
// [tokens, dim_feedforward] order.
//
// Why a caller may impose its own: ReLU is continuous but its derivative is not. An input within
// rounding of zero can be positive in fp32 and negative in double; the gradient then differs by
// that token's whole contribution to one row of linear1's weight, although both sides are right for
// their own input. (PyTorch's fp32 gradients flip 2 of 25 million ReLU inputs of the seed's model
// against fp64.) Judged on the GPU's branches, the reference checks the backward's arithmetic; the
// flips are counted and their distance from zero reported, so a broken ReLU still shows.
using relu_branches = std::map<std::string, std::vector<std::uint8_t>>;

struct reference_gradients {
  std::vector<double> output;                              // the forward's output, [batch, tgt_len, d_model]
  std::map<std::string, std::vector<double>> params;       // dL/dparameter under every state_dict name
  std::map<std::string, std::vector<double>> relu_inputs;  // linear1's output per block, keyed as relu_branches
  // With imposed branches: how many differ from the sign of the double ReLU input, and the largest
  // |input| / max |input| of its block among those (0 when none differ).
  std::size_t relu_flips = 0;
  double relu_flip_margin = 0;
};

// `weights`, `src`, `tgt` as reference_forward takes them; `grad_out` is G = dL/dout, the
// output's shape. cfg.train() with cfg.dropout > 0 applies the masks; otherwise no dropout.
// `branches`, when given, must name every feed-forward block with one entry per ReLU input (else
// std::invalid_argument naming the block); the backward then passes gradient where they say 1.
reference_gradients reference_backward(const config& cfg, const std::map<std::string, std::vector<double>>& weights,
                                       const std::vector<double>& src, const std::vector<double>& tgt,
                                       const std::vector<double>& grad_out, const relu_branches* branches = nullptr);

}  // namespace cudabench::transformer
