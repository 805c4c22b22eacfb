// `compare` on fleet files. A fleet becomes a result file whose rounds are its GPUs: each GPU's
// value of a metric (the median of its round medians) is one sample tagged with that GPU as its
// round. compare's statistics then stay exactly as they are and judge baseline fleet vs candidate
// fleet on the per-GPU values as replicates: the between-round test sees the spread between GPUs
// (which includes each GPU's own round noise), its noise scale rises when GPUs differ more than
// the documented round noise, and the session term applies unless both fleets come from one
// `ab --devices` session. Host-only; unit-tested in tests/unit/test_fleet.cpp.
#pragma once
#include <string>
#include <vector>

#include "cudabench/fleet.hpp"
#include "cudabench/result.hpp"

namespace cudabench {

// Workloads keep the fleet's order; a workload not ok on some GPU takes that GPU's status (as a
// round that failed does in merge_rounds), with the GPU named in the message.
result_file fleet_as_result(const fleet_file& f);

// Per-GPU detail: the GPUs (matched by host and index) that every file has a result for, in the
// baseline's order, each with one result per file; `missing` lists the baseline's GPUs left out.
struct matched_gpu {
  std::string name;                         // "node01 GPU 3"
  std::vector<const result_file*> results;  // one per fleet, baseline first
};
std::vector<matched_gpu> match_gpus(const std::vector<const fleet_file*>& fleets, std::vector<std::string>& missing);

}  // namespace cudabench
