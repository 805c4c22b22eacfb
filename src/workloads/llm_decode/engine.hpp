// The Llama inference engine behind the llm_decode workload: weights, KV cache, activations,
// cuBLASLt plans and the captured decode graph for one (config, dtype, prompt length, max length),
// batch 1, greedy.
//
//   prefill(stream):  the prompt through every layer with cuBLASLt GEMMs and the prefill
//                     attention kernel (tensor cores) -> logits of the last prompt token -> argmax
//                     writes tokens[prompt_tokens] and sets the device position to prompt_tokens;
//                     one replay of a graph captured at setup.
//   decode(n, stream): n replays of one captured CUDA graph; each replay is one decode step:
//                     embed tokens[pos], every layer through fused GEMVs and flash-decoding
//                     (rotary embedding and the cache append fused into the attention launch),
//                     lm_head GEMV, argmax writes tokens[pos + 1] and advances pos. Nothing on the
//                     host between steps.
//   Setup autotunes the step (tuner.cpp): each GEMV call site gets the fastest of the launch
//   variants in gemv.cuh, timed on the real weights; the graph is captured for each attention split
//   size candidate, with plain launches and, where the driver allows, with programmatic dependent
//   launch (kernels/llm_decode/launch.cuh), and the fastest is kept; each prefill GEMM gets the
//   fastest of cuBLASLt's top candidates (prefill_tuner.hpp). tuning() reports the choices.
//   generate(stream) = prefill + decode(max_length - prompt_tokens - 1): max_length tokens in all.
//
// Everything is allocated through device_buffer (counted by the harness, capped by --mem-limit).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <nlohmann/json.hpp>

#include "cudabench/llm_config.hpp"
#include "workloads/llm_decode/weights.hpp"

namespace cudabench::llm {

struct generate_shape {
  int prompt_tokens = 128;
  int max_length = 256;  // total tokens, prompt included (transformers' generate max_length)
  int decode_steps() const { return max_length - prompt_tokens - 1; }
};

class engine {
 public:
  virtual ~engine() = default;

  virtual const llm_config& config() const = 0;
  virtual dtype type() const = 0;
  virtual const generate_shape& shape() const = 0;
  virtual const weight_layout& layout() const = 0;

  // Bytes of the model's tensors (no padding).
  virtual std::uint64_t weight_bytes() const = 0;
  // Bytes one decode step at `position` reads: every weight except the embedding table (one row
  // of it), plus K and V for positions 0..position of every layer.
  virtual std::uint64_t decode_step_bytes(int position) const = 0;

  // Synchronous: uploads prompt_tokens ids (each < vocab_size).
  virtual void set_prompt(const std::vector<std::int32_t>& ids) = 0;

  virtual void prefill(cudaStream_t stream) = 0;
  virtual void decode(int steps, cudaStream_t stream) = 0;
  void generate(cudaStream_t stream) {
    prefill(stream);
    decode(shape().decode_steps(), stream);
  }

  // Synchronous reads (they synchronise `stream` first): the logits of the latest step, and the
  // token buffer (max_length ids: the prompt, then what has been generated so far).
  virtual std::vector<float> read_logits(cudaStream_t stream) const = 0;
  virtual std::vector<std::int32_t> read_tokens(cudaStream_t stream) const = 0;

  // For tests that corrupt the weights: element 0 of the device weight buffer (run dtype).
  virtual void* weight_data() = 0;
  // Was the decode graph kept the one captured with programmatic dependent launch
  // (kernels/llm_decode/launch.cuh)?
  virtual bool programmatic_launch() const = 0;
  // What setup's autotuning chose (GEMV launch variant per call site, PDL or not) and the timings
  // it chose by, for the validation message.
  virtual const std::string& tuning() const = 0;
  // The same choices as data ({"gemv": {site: variant}, "graph": {"pdl", "attn_chunk"},
  // "prefill_gemm": {site: cuBLASLt configuration}}), recorded in the result and accepted back by
  // make_engine's `forced_tuning`.
  virtual nlohmann::ordered_json tuning_choices() const = 0;
};

// Builds the engine: allocates, fills or loads the weights, plans the GEMMs, captures the decode
// graph. Throws input_error for bad checkpoints, oom_error past the memory budget.
// `forced_tuning` (may be null): choices to replay instead of timing candidates, as written by
// tuning_choices(); input_error when a choice is missing or not available here.
std::unique_ptr<engine> make_engine(const llm_config& config, dtype d, const generate_shape& shape,
                                    const weight_source& source, const nlohmann::ordered_json* forced_tuning = nullptr);

}  // namespace cudabench::llm
