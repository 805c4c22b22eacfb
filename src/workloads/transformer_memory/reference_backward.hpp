// An independent CPU reference of the backward pass of torch.nn.Transformer in training mode
// (batch_first, post-norm, ReLU, no masks, dropout from dropout_rng.hpp's hash as the kernels draw
// it), in double precision with plain loops: the gradients of L = sum(out * G) with respect to
// every parameter, for validating the GPU backward on small shapes. tests/reference checks it
// against finite differences.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "workloads/transformer_memory/config.hpp"

namespace cudabench::transformer {

struct reference_gradients {
  std::vector<double> output;                         // the forward's output, [batch, tgt_len, d_model]
  std::map<std::string, std::vector<double>> params;  // dL/dparameter under every state_dict name
};

// `weights`, `src`, `tgt` as reference_forward takes them; `grad_out` is G = dL/dout, the
// output's shape. cfg.train() with cfg.dropout > 0 applies the masks; otherwise no dropout.
reference_gradients reference_backward(const config& cfg, const std::map<std::string, std::vector<double>>& weights,
                                       const std::vector<double>& src, const std::vector<double>& tgt,
                                       const std::vector<double>& grad_out);

}  // namespace cudabench::transformer
