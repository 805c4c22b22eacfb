// What identifies a cuBLASLt algorithm configuration, as JSON: what a setup-time tuner records in a
// result's `tuning` and what `--tuning-from` matches a candidate on (the matmul kind, llm_decode's
// prefill GEMMs). A replay matches on the configuration, not on the candidate's index, because
// another cuBLASLt may list its candidates in another order.
#pragma once
#include <vector>

#include <cublasLt.h>
#include <nlohmann/json.hpp>

namespace cudabench {

// One attribute of the configuration, or -1 when cuBLASLt cannot say.
int algo_config_int(const cublasLtMatmulAlgo_t& algo, cublasLtMatmulAlgoConfigAttributes_t attr);

// {"id", "tile", "stages", "splitk", "reduction", "swizzle", "custom", "inner_shape", "cluster_shape"}.
nlohmann::ordered_json algo_config_json(const cublasLtMatmulAlgo_t& algo);

// The same fields out of a recorded object (which may hold more, such as the candidate's index);
// a missing field is null, so it matches no live configuration.
nlohmann::ordered_json algo_config_json_of_record(const nlohmann::ordered_json& rec);

// The index of the candidate whose configuration is the recorded one, or -1 when none is (another
// cuBLASLt may not offer it: the replaying caller says so rather than tuning anew).
int find_recorded_algo(const std::vector<cublasLtMatmulAlgo_t>& candidates, const nlohmann::ordered_json& rec);

}  // namespace cudabench
