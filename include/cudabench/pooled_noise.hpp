// The round prior of rows no measurement knows, learned from the other rows measured with them (a
// comparison's files, or one result file with rounds): per kind, Smyth's empirical-Bayes fit of
// their between-round variances (variance_prior.hpp); a kind with too few such rows borrows the fit
// over all of them. docs/statistics.md "A GPU model with no history". Host-only.
#pragma once
#include <string>
#include <vector>

#include "cudabench/noise_floor.hpp"

namespace cudabench {

// Marks a round prior learned this way (noise_model::round_source).
inline constexpr const char* pooled_round_source = "pooled";

// One row's between-round evidence: the sum over files of squared deviations of the log round
// medians from that file's mean, and its degrees of freedom (sum of rounds - 1).
struct round_evidence {
  std::string kind;
  double ss = 0;
  int df = 0;
};

// The evidence of one file's round medians added to `e` (nothing for fewer than 2 rounds or a
// median that is not finite and > 0).
void add_round_evidence(round_evidence& e, const std::vector<double>& round_medians);

// For each i whose noise[i].round_source is "fallback" and whose rounds vary beyond the timer's
// resolution: round_sd and round_df from the fit, round_source pooled_round_source. A row whose
// rounds agree to the timer (peak memory) or that has no rounds keeps its table. Returns how many
// rows changed. Throws std::invalid_argument when the sizes differ.
int pool_round_noise(const std::vector<round_evidence>& evidence, std::vector<noise_model>& noise);

}  // namespace cudabench
