// See noise_floor.hpp; docs/statistics.md explains each number.
#include "cudabench/noise_floor.hpp"

namespace cudabench {
namespace {

std::string string_param(const nlohmann::ordered_json& params, const char* key) {
  auto it = params.find(key);
  return it != params.end() && it->is_string() ? it->get<std::string>() : std::string();
}

double number_param(const nlohmann::ordered_json& params, const char* key, double fallback) {
  auto it = params.find(key);
  return it != params.end() && it->is_number() ? it->get<double>() : fallback;
}

}  // namespace

double noise_floor(const std::string& kind, const std::string& metric, const nlohmann::ordered_json& params) {
  if (kind == "matmul") {
    // Small problems run in microseconds: launch gaps and the algorithm pick move them most.
    // Large ones sit at the power cap, whose clock wanders by a few percent between processes.
    const double work = number_param(params, "m", 0) * number_param(params, "n", 0) * number_param(params, "k", 0) *
                        number_param(params, "batch", 1);
    return work < 4096.0 * 4096 * 4096 ? 0.04 : 0.02;
  }
  if (kind == "memory_bandwidth") {
    const std::string op = string_param(params, "op");
    if (op.find("pageable") != std::string::npos) return 0.08;  // host page cache, NUMA placement
    if (op.find("pinned") != std::string::npos) return 0.03;    // PCIe, shared with the host
    return 0.01;                                                // device-local copy and memset
  }
  if (kind == "llm_decode") return metric == "ttft_ms" ? 0.03 : 0.015;
  if (kind == "resnet50") return metric == "first_inference_ms" ? 0.15 : 0.015;
  if (kind == "transformer_memory") return 0.015;
  if (kind == "train_step") return 0.015;
  return 0.03;
}

}  // namespace cudabench
