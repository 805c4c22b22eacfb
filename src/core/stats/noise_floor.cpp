// See noise_floor.hpp. The fallback table for rows with no measured noise of their own: each kind's
// entry is in its description (src/kinds/<kind>.cpp).
// Recalibrated (issue 22) from every committed multi-session H200 measurement, the sessions listed
// in scripts/noise_prior.py (results/h200/{run-21e6d66,quick,quick-aa,full,resnet-cudnn-system}.json,
// aa-full/, sens/A.json, aa-quick/, refactor-16/*/A.json, cuda12/C.json, cuda12/resnet-cudnn12/C.json;
// verdicts/aa-full-3rounds-15377c2/ without its llm_decode rows; 2026-12-02..04, 2-8 sessions per row): each number is
// the largest round sd / session sd that any row of the class showed (configs/noise_prior.json), rounded up. Not a
// floor under measured rows: those use their own evidence (row_noise.cpp).
#include "cudabench/noise_floor.hpp"

#include "cudabench/kind_description.hpp"

namespace cudabench {

noise_model noise_floor(const std::string& kind, const std::string& metric, const nlohmann::ordered_json& params) {
  const kind_description* k = find_kind_description(kind);
  return k && k->noise ? k->noise(metric, params) : noise_model{};
}

}  // namespace cudabench
