// Workload kind `llm_decode`: greedy generation with a Llama-family decoder at batch 1, on
// cudabench's own kernels (kernels/llm_decode/) and cuBLASLt.
//
// One run = one generate to max_length tokens: prefill of the seeded prompt (cuBLASLt GEMMs +
// causal attention) producing the first token, then max_length - prompt_tokens - 1 replays of a
// captured decode-step graph (fused GEMVs, flash-decoding, device argmax; kernels chained with
// programmatic dependent launch where the driver supports it in graphs); no host sync inside.
// Events recorded inside run() give time to first token and decode time for each repetition.
//
// Metrics (headline first): decode_tokens_per_s, tpot_ms, ttft_ms (5 samples each, from the last
// run of each repetition), total_ms (the harness's per-run time), bandwidth_gbps (weights + KV
// bytes read per decode step / tpot), peak_memory_gb and weights_gb (one sample each).
//
// Validation: a model small enough for the CPU reference is checked itself (first-step logits and
// greedy tokens vs a double-precision reference on the same weights); a bigger one validates a
// small "shadow" config (its head_dim, GQA ratio, RoPE theta, dtype) through the same kernels
// against the reference at the same prompt length (up to 2048 positions), then sanity-checks its
// own full run (finite logits, ids in range).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cudabench/cuda_handles.hpp"
#include "cudabench/kind_schema.hpp"
#include "cudabench/llm_config.hpp"
#include "cudabench/workload.hpp"
#include "workloads/llm_decode/engine.hpp"

namespace cudabench {

kind_schema llm_decode_schema();
std::unique_ptr<workload> make_llm_decode(const workload_spec& spec);

class llm_decode_workload : public workload {
 public:
  explicit llm_decode_workload(const workload_spec& spec);
  ~llm_decode_workload() override;

  void setup(run_context& ctx) override;
  validation_outcome verify(run_context& ctx) override;
  void run(cudaStream_t stream) override;
  void after_repetition(run_context& ctx) override;
  metric_list metrics(const measurement& m) const override;
  void teardown() override;
  nlohmann::ordered_json tuning() const override;

  // For tests: the engine after setup(), and the checks verify() composes.
  llm::engine& engine() { return *engine_; }
  // Is the model small enough for the CPU reference to check it directly?
  bool reference_checks_own_model() const;
  // The shadow config verify() validates for models too big for the reference.
  static llm_config shadow_config(const llm_config& big);

 private:
  std::string model_;
  bool from_checkpoint_ = false;
  llm::dtype dtype_;
  llm::generate_shape shape_;
  llm_config config_;
  llm::weight_source source_;
  std::unique_ptr<llm::engine> engine_;
  std::vector<std::int32_t> prompt_;
  std::unique_ptr<cuda_event> start_, first_token_, end_;
  std::vector<double> ttft_ms_, decode_ms_;  // one per repetition
  double weight_bytes_ = 0, step_bytes_ = 0;  // kept for metrics(), which may run after teardown()
};

}  // namespace cudabench
