// The harness: runs a suite's workloads one at a time through their phases
// (setup -> verify -> warm-up -> timed repetitions -> metrics -> teardown), records clocks,
// memory and a status for each, and rewrites the result file atomically after every workload,
// so a crash or Ctrl-C loses at most the workload in flight.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "cudabench/result.hpp"
#include "cudabench/suite.hpp"
#include "cudabench/workload.hpp"

namespace cudabench {

struct runner_options {
  run_settings settings;         // suite defaults with command-line overrides applied
  int device = 0;
  std::string label;             // environment.label override
  std::string output_path;       // "" = don't write a file
  std::uint64_t mem_limit = 0;   // bytes; 0 = none
  bool cold = false;             // flush L2 before every timed run
  bool quiet = false;            // no progress lines
  std::vector<std::string> argv; // recorded in tool.argv
  // Workload id -> tuning object to replay (from `--tuning-from FILE`); ids not in it tune freely.
  std::map<std::string, nlohmann::ordered_json> tuning_from;
  std::string tuning_from_source;  // the file it came from, for messages and settings
};

// Kind name -> the factory that makes its workloads, or null for a kind the caller does not know.
// The caller supplies it (the CLI: registry.hpp's find_factory), so the harness knows no kind.
using factory_lookup = std::function<const workload_factory*(const std::string& kind)>;

// `stop` is polled between phases; when set (Ctrl-C) the workload in flight is abandoned and
// recorded as skipped, and the rest are not run.
result_file run_suite(const suite& s, const factory_lookup& factories, const runner_options& opts,
                      const std::atomic<bool>& stop);

// Measures one workload (all phases) made by `make`; a null `make` records the kind as unknown.
// Never throws for workload failures: they become a status.
workload_result run_workload(const workload_spec& spec, const workload_factory* make, const runner_options& opts,
                             const std::atomic<bool>& stop);

}  // namespace cudabench
