// See blaslt_algo.hpp.
#include "cudabench/gpu/blaslt_algo.hpp"

#include <cstddef>
#include <cstdint>

namespace cudabench {

int algo_config_int(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attr) {
  // Attributes are 16- or 32-bit; cuBLASLt wants the exact size, so ask for it first.
  std::size_t size = 0;
  if (cublasLtMatmulAlgoConfigGetAttribute(&algo, attr, nullptr, 0, &size) != CUBLAS_STATUS_SUCCESS) return -1;
  if (size == sizeof(std::uint16_t)) {
    std::uint16_t v = 0;
    if (cublasLtMatmulAlgoConfigGetAttribute(&algo, attr, &v, sizeof v, &size) != CUBLAS_STATUS_SUCCESS) return -1;
    return v;
  }
  std::uint32_t v = 0;
  if (size != sizeof v ||
      cublasLtMatmulAlgoConfigGetAttribute(&algo, attr, &v, sizeof v, &size) != CUBLAS_STATUS_SUCCESS)
    return -1;
  return static_cast<int>(v);
}

nlohmann::ordered_json algo_config_json(const cublasLtMatmulAlgo_t& algo) {
  return {{"id", algo_config_int(algo, CUBLASLT_ALGO_CONFIG_ID)},
          {"tile", algo_config_int(algo, CUBLASLT_ALGO_CONFIG_TILE_ID)},
          {"stages", algo_config_int(algo, CUBLASLT_ALGO_CONFIG_STAGES_ID)},
          {"splitk", algo_config_int(algo, CUBLASLT_ALGO_CONFIG_SPLITK_NUM)},
          {"reduction", algo_config_int(algo, CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME)},
          {"swizzle", algo_config_int(algo, CUBLASLT_ALGO_CONFIG_CTA_SWIZZLING)},
          {"custom", algo_config_int(algo, CUBLASLT_ALGO_CONFIG_CUSTOM_OPTION)},
          {"inner_shape", algo_config_int(algo, CUBLASLT_ALGO_CONFIG_INNER_SHAPE_ID)},
          {"cluster_shape", algo_config_int(algo, CUBLASLT_ALGO_CONFIG_CLUSTER_SHAPE_ID)}};
}

nlohmann::ordered_json algo_config_json_of_record(const nlohmann::ordered_json& rec) {
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  for (const char* key :
       {"id", "tile", "stages", "splitk", "reduction", "swizzle", "custom", "inner_shape", "cluster_shape"})
    out[key] = rec.contains(key) ? rec.at(key) : nlohmann::ordered_json(nullptr);
  return out;
}

int find_recorded_algo(const std::vector<cublasLtMatmulAlgo_t>& candidates, const nlohmann::ordered_json& rec) {
  const nlohmann::ordered_json want = algo_config_json_of_record(rec);
  for (std::size_t i = 0; i < candidates.size(); ++i)
    if (algo_config_json(candidates[i]) == want) return static_cast<int>(i);
  return -1;
}

}  // namespace cudabench
