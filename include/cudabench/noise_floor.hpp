// The fallback noise of each workload kind: what compare assumes for a row that no measurement
// knows (neither the committed prior, configs/noise_prior.json, nor a given history; see
// noise_prior.hpp and row_noise.hpp). Two numbers, both relative standard deviations (0.01 = 1%):
//   round_sd   - of one round's median between fresh processes in one session on one GPU (the
//                prior of the between-round test; with single-round files it is all the test has);
//   session_sd - of a whole session's level: a different machine start, power state, host memory
//                placement. It cancels in an interleaved A/B (`cudabench ab`), where both sides
//                share the session, and is added to the variance of every other comparison.
// The values are the largest measured for any row of the class in the committed H200 sessions
// (noise_floor.cpp says which files; each kind's are in its src/kinds/<kind>.cpp; docs/statistics.md
// has the table): a row with no evidence of its own is judged as the noisiest row like it. Host-only.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace cudabench {

struct noise_model {
  double round_sd = 0.03;
  double session_sd = 0.05;
  // Degrees of freedom behind each number. round_df: the weight of round_sd as the prior of the
  // between-round variance (0: compare's --prior-df). session_df: 0 takes session_sd as known
  // (the fallback table); > 0 is an estimate from that many df, and the test's t quantile widens.
  double round_df = 0;
  double session_df = 0;
  // "committed" ("committed, latest level": see measured_noise::round_latest_level), "pooled", "fallback"
  std::string round_source = "fallback";
  std::string session_source = "fallback";
  int sessions = 0;  // sessions behind session_sd (0 for the fallback table)
};

// The model for this workload's metric. Unknown kinds get a cautious default.
noise_model noise_floor(const std::string& kind, const std::string& metric, const nlohmann::ordered_json& params);

}  // namespace cudabench
