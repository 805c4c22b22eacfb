// Checks for the LLM engine: a small model's first-step logits and greedy tokens against the CPU
// reference (reference.hpp), and sanity checks for models too big for the reference.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "cudabench/gpu/workload.hpp"
#include "workloads/llm_decode/engine.hpp"
#include "workloads/llm_decode/reference.hpp"

namespace cudabench::llm {

// Allowed max |gpu - ref| / max |ref| over the first step's logits. The GPU rounds every
// activation to the run dtype as transformers does (u = 2^-11 fp16, 2^-8 bf16); over a few layers
// that stays ~10x below these bounds, while a wrong kernel (indexing, a missing norm weight, a
// skipped residual) is off by O(1).
double logits_tolerance(dtype d);

// Prompt ids, seeded, uniform over the vocabulary.
std::vector<std::int32_t> seeded_prompt(std::uint64_t seed, int count, int vocab);

// Logits: max |gpu - ref| / max |ref| <= tolerance. Tokens: gpu_generated[i] == ref.generated[i]
// until the first position where the reference's top-2 gap is within tolerance x max |ref| and the
// two disagree (a near tie: either answer is right within rounding), after which nothing is
// compared. `what` names the model in the message.
validation_outcome compare_with_reference(const std::vector<float>& gpu_first_logits,
                                          const std::vector<std::int32_t>& gpu_generated, const reference_run& ref,
                                          double tolerance, const std::string& what);

// Runs `e` (whose prompt is set to `prompt`) through generate() -- prefill, then every decode step
// through the captured graph -- and checks the first logits and the first `check_tokens` generated
// tokens against the CPU reference on the weights from `source`.
validation_outcome validate_engine(engine& e, const weight_source& source, const std::vector<std::int32_t>& prompt,
                                   int check_tokens, cudaStream_t stream, const std::string& what);

// For models too big for the reference: after a full generate(), the final logits are finite and
// every token id is inside the vocabulary.
validation_outcome sanity_check(const std::vector<float>& logits, const std::vector<std::int32_t>& tokens, int vocab,
                                const std::string& what);

}  // namespace cudabench::llm
