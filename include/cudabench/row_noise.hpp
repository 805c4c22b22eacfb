// Which noise a compared row is judged with, from the evidence there is (docs/statistics.md):
//   between rounds:   the committed prior's pooled round sd of this row on this GPU model (its df,
//                     at most compare's prior_df, is its weight); else the kind's fallback table.
//   between sessions: the history's spread of this row's run levels, pooled with the committed
//                     prior's (df add up); else the committed prior alone; else the fallback table,
//                     taken as known.
// Under every measured sd lies only the measurement's resolution (resolution_sd), never the
// noisiest thing ever seen for the kind. Host-only.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "cudabench/noise_floor.hpp"
#include "cudabench/noise_prior.hpp"

namespace cudabench {

// The timer's resolution relative to a repetition: CUDA events resolve ~0.5 us and a repetition
// times a batch of >= 1 ms (min_time_ms), so 1e-4 (0.01%) is above what the clock can tell.
inline constexpr double resolution_sd = 1e-4;

struct noise_evidence {
  const noise_prior* committed = nullptr;  // nullptr: none (tests of the fallback)
  const noise_prior* history = nullptr;    // nullptr: no history given
};

// The evidence compare uses by default: the built-in committed prior, no history.
noise_evidence default_noise_evidence();

noise_model row_noise(const noise_evidence& evidence, const std::string& gpu, const std::string& id,
                      const std::string& kind, const std::string& metric, const nlohmann::ordered_json& params);

}  // namespace cudabench
