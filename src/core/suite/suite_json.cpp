// See suite.hpp: the JSON forms of a suite, its settings and its workloads.
#include "cudabench/suite.hpp"

namespace cudabench {

nlohmann::ordered_json suite_identity_json(const suite& s) {
  return {{"name", s.name}, {"source", s.source}, {"sha256", s.sha256}};
}

nlohmann::ordered_json suite_defaults_json(const run_settings& r) {
  return {{"repetitions", r.repetitions}, {"warmup", r.warmup}, {"min_time_ms", r.min_time_ms}};
}

nlohmann::ordered_json to_json(const run_settings& r) {
  nlohmann::ordered_json j = suite_defaults_json(r);
  j["warmup_ms"] = r.warmup_ms;
  return j;
}

nlohmann::ordered_json to_json(const workload_spec& w) {
  return {{"id", w.id}, {"kind", w.kind}, {"params", w.params}};
}

nlohmann::ordered_json to_json(const std::vector<workload_spec>& workloads) {
  auto out = nlohmann::ordered_json::array();
  for (const auto& w : workloads) out.push_back(to_json(w));
  return out;
}

}  // namespace cudabench
