// Documented between-run noise floors: the relative standard deviation of one round's median
// between fresh processes on one GPU, per workload kind and metric. compare uses it as the prior of
// its between-round test (round_test.hpp); with single-round files it is all the test has. The
// values come from A/A runs on an H200 (docs/statistics.md has the table and how it was measured);
// they err high, which costs power, never false alarms. Host-only.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace cudabench {

// Relative sd (0.01 = 1%) for this workload's metric. Unknown kinds get a cautious default.
double noise_floor(const std::string& kind, const std::string& metric, const nlohmann::ordered_json& params);

}  // namespace cudabench
