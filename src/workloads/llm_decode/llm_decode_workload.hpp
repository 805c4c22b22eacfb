// The `llm_decode` workload class, for llm_decode.cpp and the tests that reach into it (outputs to corrupt,
// internals to inspect). Everything else makes one through make_llm_decode (llm_decode.hpp).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cudabench/gpu/cuda_handles.hpp"
#include "cudabench/gpu/workload.hpp"
#include "cudabench/llm_config.hpp"
#include "workloads/llm_decode/engine.hpp"

namespace cudabench {

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
  dtype dtype_;
  llm::generate_shape shape_;
  llm_config config_;
  llm::weight_source source_;
  std::unique_ptr<llm::engine> engine_;
  std::vector<std::int32_t> prompt_;
  std::unique_ptr<cuda_event> start_, first_token_, end_;
  std::vector<double> ttft_ms_, decode_ms_;   // one per repetition
  double weight_bytes_ = 0, step_bytes_ = 0;  // kept for metrics(), which may run after teardown()
};

}  // namespace cudabench
