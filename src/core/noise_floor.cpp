// See noise_floor.hpp. The fallback table for rows with no measured noise of their own.
// Recalibrated (issue 22) from every committed multi-session H200 measurement, the sessions listed
// in scripts/noise_prior.py (results/h200/{run-21e6d66,quick,quick-aa,full,resnet-cudnn-system}.json,
// aa-full/, sens/A.json, aa-quick/, refactor-16/*/A.json, cuda12/C.json, cuda12/resnet-cudnn12/C.json;
// verdicts/aa-full-3rounds-15377c2/ without its llm_decode rows; 2026-12-02..04, 2-8 sessions per row): each number is
// the largest round sd / session sd that any row of the class showed (configs/noise_prior.json), rounded up. Not a
// floor under measured rows: those use their own evidence (row_noise.cpp).
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
    // Microsecond problems are bound by the host's launch rate, not the GPU: 1024^3 GEMMs moved
    // up to 17% (sd of round medians) between processes, sessions up to 12%. Larger ones sit at the
    // 700 W power cap, whose clock wanders: rounds 0.2-2.3%, sessions 0.2-3.9% (2048^3-8192^3).
    const double work = number_param(params, "m", 0) * number_param(params, "n", 0) * number_param(params, "k", 0) *
                        number_param(params, "batch", 1);
    if (work < 2048.0 * 2048 * 2048) return {0.18, 0.13};
    return {0.025, 0.045};
  }
  if (kind == "memory_bandwidth") {
    const std::string op = string_param(params, "op");
    // Pageable copies go through the driver's staging buffer and the host's memcpy: rounds up to
    // 30%, sessions up to 23% (6-17 GB/s). Only a change far beyond that is a verdict.
    if (op.find("pageable") != std::string::npos) return {0.31, 0.23};
    if (op.find("pinned") != std::string::npos) return {0.03, 0.027};  // PCIe: rounds 0.1-2.9%, sessions <= 2.7%
    return {0.005, 0.004};  // d2d and memset: rounds 0.06-0.5%, sessions 0.05-0.4%
  }
  if (kind == "llm_decode") {
    // Llama-2-7B streams 13 GB per token: its rounds agree to 0.02-0.03%, sessions to 0.05-0.7%;
    // its TTFT to 0.35% / 0.2%. llama-tiny's 80 us decode step is launch-bound: 2.6% / 3.8%.
    if (string_param(params, "model") == "llama-tiny") return {0.03, 0.04};
    return metric == "ttft_ms" ? noise_model{0.004, 0.003} : noise_model{0.001, 0.008};
  }
  if (kind == "resnet50")  // throughput: rounds 0.05-0.16%, sessions 0.3-0.5%; first inference 20% / 20%
    return metric == "first_inference_ms" ? noise_model{0.21, 0.20} : noise_model{0.002, 0.005};
  // transformer_memory: rounds 0.1-0.2%, sessions 0.05-0.1% except batch 8 (11.5%: its attention
  // kernel changed between the sessions, so that row's prior counts a real change as noise).
  if (kind == "transformer_memory") return {0.002, 0.002};
  if (kind == "train_step") return {0.008, 0.027};  // rounds 0.2-0.7%, sessions 0.2-2.6%
  return {};
}

}  // namespace cudabench
