// The fleet outlier rule's noise unit (fleet_outliers.hpp): how far one GPU's value may sit from the
// fleet's median by noise alone, as a relative sd per kind. These are the session floors compare
// used before issue 22 made its noise measured per row (noise_floor.hpp is now compare's fallback
// only); the fleet keeps them because no fleet (several GPUs of one model) has been measured yet to
// recalibrate them, and lowering them without evidence would flag healthy GPUs. Host-only.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace cudabench {

double gpu_spread_floor(const std::string& kind, const std::string& metric, const nlohmann::ordered_json& params);

}  // namespace cudabench
