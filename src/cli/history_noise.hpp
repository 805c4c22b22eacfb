// The session noise a run-history database measured (`compare --history DB`, `noise --history DB`):
// each stored run is one session of the rows it holds (noise_prior::from_history), except runs whose
// file the committed prior was measured from (counted there already).
#pragma once
#include <string>

#include "cudabench/noise_prior.hpp"

namespace cudabench::cli {

// Opens `db` read-only. A missing, foreign or corrupt database is an input_error naming it
// (history_store); a build without SQLite is a runtime_failure.
noise_prior read_history_noise(const std::string& db);

}  // namespace cudabench::cli
