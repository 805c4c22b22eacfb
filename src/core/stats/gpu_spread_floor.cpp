// See gpu_spread_floor.hpp. The values are compare's session floors of 2026-12-03 (one A/A of the
// full suite on an H200 plus one across two machine starts; docs/fleet.md).
#include "cudabench/gpu_spread_floor.hpp"

namespace cudabench {

double gpu_spread_floor(const std::string& kind, const std::string& metric, const nlohmann::ordered_json& params) {
  auto text = [&](const char* key) {
    auto it = params.find(key);
    return it != params.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  auto number = [&](const char* key, double fallback) {
    auto it = params.find(key);
    return it != params.end() && it->is_number() ? it->get<double>() : fallback;
  };
  if (kind == "matmul")
    return number("m", 0) * number("n", 0) * number("k", 0) * number("batch", 1) < 2048.0 * 2048 * 2048 ? 0.20 : 0.03;
  if (kind == "memory_bandwidth") {
    const std::string op = text("op");
    if (op.find("pageable") != std::string::npos) return 0.35;
    return op.find("pinned") != std::string::npos ? 0.05 : 0.01;
  }
  if (kind == "llm_decode") {
    if (text("model") == "llama-tiny") return 0.05;
    return metric == "ttft_ms" ? 0.04 : 0.02;
  }
  if (kind == "resnet50") return metric == "first_inference_ms" ? 0.20 : 0.02;
  if (kind == "transformer_memory" || kind == "train_step") return 0.02;
  return 0.05;
}

}  // namespace cudabench
