// See noise_floor.hpp; docs/statistics.md explains each number and how it was measured.
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

noise_model noise_floor(const std::string& kind, const std::string& metric, const nlohmann::ordered_json& params) {
  if (kind == "matmul") {
    // Small problems run in microseconds: launch gaps, the clock's boost state and the algorithm
    // pick move them most (an A/A across two machine starts once saw a 1024^3 tf32 GEMM 16% apart).
    // Large ones sit at the power cap, whose clock wanders between processes and machines.
    const double work = number_param(params, "m", 0) * number_param(params, "n", 0) * number_param(params, "k", 0) *
                        number_param(params, "batch", 1);
    if (work < 2048.0 * 2048 * 2048) return {0.03, 0.06};
    if (work < 8192.0 * 8192 * 8192) return {0.02, 0.03};
    return {0.015, 0.02};
  }
  if (kind == "memory_bandwidth") {
    const std::string op = string_param(params, "op");
    if (op.find("pageable") != std::string::npos) return {0.06, 0.10};  // host page cache, NUMA placement
    if (op.find("pinned") != std::string::npos) return {0.02, 0.05};    // PCIe, shared with the host
    return {0.01, 0.01};                                                 // device-local copy and memset
  }
  if (kind == "llm_decode") return metric == "ttft_ms" ? noise_model{0.03, 0.04} : noise_model{0.015, 0.02};
  if (kind == "resnet50") return metric == "first_inference_ms" ? noise_model{0.15, 0.20} : noise_model{0.015, 0.02};
  if (kind == "transformer_memory") return {0.015, 0.02};
  if (kind == "train_step") return {0.015, 0.02};
  return {};
}

}  // namespace cudabench
