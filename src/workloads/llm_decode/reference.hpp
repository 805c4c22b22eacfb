// An independent, deliberately simple CPU implementation of the Llama forward pass in double
// precision (token by token, no fusion, no rounding to fp16), used by verify() and the GPU tests
// as the ground truth for small configs.
#pragma once
#include <cstdint>
#include <vector>

#include "cudabench/llm_config.hpp"
#include "workloads/llm_decode/weights.hpp"

namespace cudabench::llm {

struct reference_run {
  std::vector<double> first_logits;     // after the whole prompt
  std::vector<std::int32_t> generated;  // greedy continuation; generated[0] = argmax(first_logits)
  std::vector<double> top2_gap;         // per generated token: its logit minus the runner-up's
};

// Runs the prompt, then greedily generates `new_tokens` tokens. Cost ~ parameters x tokens
// multiply-adds in double: keep it to small configs.
reference_run reference_generate(const llm_config& c, const host_weights& w, const std::vector<std::int32_t>& prompt,
                                 int new_tokens);

}  // namespace cudabench::llm
