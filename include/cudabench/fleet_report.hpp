// What `run --devices` and `fleet collect` print: the fleet's workloads (median across GPUs,
// spread, outlier count), then the outlier GPUs, every outlier, the differences between GPUs and
// the notes. Host-only.
#pragma once
#include <string>

#include "cudabench/fleet.hpp"
#include "cudabench/run_summary.hpp"

namespace cudabench {

// table and markdown: the summary above; csv: one row per workload and GPU; json: the fleet file.
std::string format_fleet_summary(const fleet_file& f, summary_format format);

}  // namespace cudabench
