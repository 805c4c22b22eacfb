// Documented between-run noise of each workload kind: what compare assumes when the files alone
// cannot tell it. Two numbers, both relative standard deviations (0.01 = 1%):
//   round_sd   - of one round's median between fresh processes in one session on one GPU (the
//                prior of the between-round test; with single-round files it is all the test has);
//   session_sd - of a whole session's level: a different machine start, power state, host memory
//                placement. It cancels in an interleaved A/B (`cudabench ab`), where both sides
//                share the session, and is added to the variance of every other comparison.
// The values come from A/A runs on an H200 (docs/statistics.md: the table and how it was
// measured); they err high, which costs sensitivity, never false alarms. Host-only.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace cudabench {

struct noise_model {
  double round_sd = 0.03;
  double session_sd = 0.05;
};

// The model for this workload's metric. Unknown kinds get a cautious default.
noise_model noise_floor(const std::string& kind, const std::string& metric, const nlohmann::ordered_json& params);

}  // namespace cudabench
