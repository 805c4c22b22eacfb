// Plants a ReLU branch in a small train-mode transformer_memory model with backward, for the
// tests of compare_gradients' ReLU-branch rule (reference_backward.hpp says why the rule exists):
// the emulated test (tests/emulated) and the GPU test (tests/gpu) run the same plant.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <cuda_runtime.h>

#include "cudabench/gpu/blaslt.hpp"
#include "cudabench/gpu/cuda_check.hpp"
#include "kernels/transformer_memory/dropout_rng.hpp"
#include "workloads/transformer_memory/model.hpp"
#include "workloads/transformer_memory/reference_backward.hpp"
#include "workloads/transformer_memory/validate.hpp"

namespace cudabench::plants {

// Both in encoder layer 0's feed-forward block.
enum class relu_plant {
  // linear1's bias of one unit is moved so that one token's input is +1e-6 of the block's largest
  // in double (a kept element at p > 0, so the branch matters), and the saved ReLU output there is
  // set to 0 after the forward: the backward takes the branch fp32 rounding could have taken.
  tie,
  // the largest ReLU output is set to 0 after the forward: a ReLU that is wrong, not a tie.
  largest,
};

// Runs `c` (train mode, backward, fp32) with the plant; returns compare_gradients at 1e-5, and in
// `plain_error` the error of encoder layer 0's linear1 bias gradient against the reference on
// double's own branches.
inline validation_outcome check_with_planted_branch(const transformer::config& c, relu_plant what,
                                                    double* plain_error) {
  blaslt_context lt;
  transformer::model m(lt, c);
  m.init_random(31, nullptr);
  m.fill_grad_output(36, nullptr);
  const std::size_t n = static_cast<std::size_t>(c.src_tokens()) * c.dim_feedforward;
  std::size_t at = 0;
  if (what == relu_plant::tie) {
    const transformer::host_snapshot before = transformer::snapshot(m);
    const std::vector<double> h =
        transformer::reference_backward(c, before.weights, before.src, before.tgt, before.grad_out)
            .relu_inputs.at("encoder.layers.0.");
    const std::uint64_t seed = transformer::dropout_site_seed(c.dropout_seed, 0, transformer::dropout_site::ffn_hidden);
    double scale = 0;
    for (double e : h) scale = std::max(scale, std::fabs(e));
    bool found = false;
    for (std::size_t i = 0; i < n; ++i) {
      const bool kept = c.dropout <= 0 || transformer::dropout_keep(seed, i, transformer::dropout_threshold(c.dropout));
      if (kept && h[i] > 0 && (!found || h[i] < h[at])) at = i, found = true;
    }
    const char* bias = "encoder.layers.0.linear1.bias";
    const int unit = static_cast<int>(at % c.dim_feedforward);
    const float moved = static_cast<float>(before.weights.at(bias)[unit] - h[at] + 1e-6 * scale);
    float* b = static_cast<float*>(const_cast<void*>(m.params().get(bias)));
    CUDABENCH_CHECK_CUDA(cudaMemcpy(b + unit, &moved, sizeof moved, cudaMemcpyHostToDevice));
  }
  const transformer::host_snapshot snap = transformer::snapshot(m);
  m.forward(nullptr);
  float* relu = static_cast<float*>(m.relu_output(false, 0));
  if (what == relu_plant::largest) {
    const std::vector<float> out = transformer::download_floats(relu, n, dtype::fp32);
    at = static_cast<std::size_t>(std::max_element(out.begin(), out.end()) - out.begin());
  }
  const float zero = 0.0f;
  CUDABENCH_CHECK_CUDA(cudaMemcpy(relu + at, &zero, sizeof zero, cudaMemcpyHostToDevice));
  m.backward(nullptr);

  const transformer::reference_gradients plain =
      transformer::reference_backward(c, snap.weights, snap.src, snap.tgt, snap.grad_out);
  const std::vector<double>& ref = plain.params.at("encoder.layers.0.linear1.bias");
  const std::vector<float> got =
      transformer::download_floats(m.gradient("encoder.layers.0.linear1.bias"), ref.size(), dtype::fp32);
  double max_ref = 0, max_err = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    max_ref = std::max(max_ref, std::fabs(ref[i]));
    max_err = std::max(max_err, std::fabs(got[i] - ref[i]));
  }
  *plain_error = max_err / max_ref;
  return transformer::compare_gradients(m, snap, 1e-5);
}

}  // namespace cudabench::plants
