// Reading a workload's parameters where any may be missing or of another type (the noise
// fallbacks see params of result files from any build): a fallback value instead of an error.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace cudabench::kinds {

inline std::string string_param(const nlohmann::ordered_json& params, const char* key) {
  auto it = params.find(key);
  return it != params.end() && it->is_string() ? it->get<std::string>() : std::string();
}

inline double number_param(const nlohmann::ordered_json& params, const char* key, double fallback) {
  auto it = params.find(key);
  return it != params.end() && it->is_number() ? it->get<double>() : fallback;
}

}  // namespace cudabench::kinds
