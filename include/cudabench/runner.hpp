// The harness: runs a suite's workloads one at a time through their phases
// (setup -> verify -> warm-up -> timed repetitions -> metrics -> teardown), records clocks,
// memory and a status for each, and rewrites the result file atomically after every workload,
// so a crash or Ctrl-C loses at most the workload in flight. It prints nothing itself: progress
// goes to the run_observer it is given (the CLI's prints lines on stderr).
#pragma once
#include <atomic>
#include <cstddef>
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
  run_settings settings;  // suite defaults with command-line overrides applied
  int device = 0;
  std::string label;              // environment.label override
  std::string output_path;        // "" = don't write a file
  std::uint64_t mem_limit = 0;    // bytes; 0 = none
  bool cold = false;              // flush L2 before every timed run
  std::vector<std::string> argv;  // recorded in tool.argv
  // Workload id -> tuning object to replay (from `--tuning-from FILE`); ids not in it tune freely.
  std::map<std::string, nlohmann::ordered_json> tuning_from;
  std::string tuning_from_source;  // the file it came from, for messages and settings
};

// Kind name -> the factory that makes its workloads, or null for a kind the caller does not know.
// The caller supplies it (the CLI: registry.hpp's find_factory), so the harness knows no kind.
using factory_lookup = std::function<const workload_factory*(const std::string& kind)>;

// What run_suite reports while it runs, for a front end to show (or a test to record). Every call
// comes from the thread that called run_suite; the default for each is to do nothing.
class run_observer {
 public:
  virtual ~run_observer() = default;
  // Workload `index` (0-based) of `count` is about to run.
  virtual void on_workload_start(std::size_t /*index*/, std::size_t /*count*/, const workload_spec& /*spec*/) {}
  // It ended with `r`, which the result file gets next.
  virtual void on_workload_done(std::size_t /*index*/, std::size_t /*count*/, const workload_result& /*r*/) {}
  // `stop` was set: `recorded` of `count` workloads are in the result (and its file, if any).
  virtual void on_interrupted(std::size_t /*recorded*/, std::size_t /*count*/) {}
};

// `stop` is polled between phases; when set (Ctrl-C) the workload in flight is abandoned and
// recorded as skipped, and the rest are not run. `observer` may be null (nothing reported).
result_file run_suite(const suite& s, const factory_lookup& factories, const runner_options& opts,
                      const std::atomic<bool>& stop, run_observer* observer = nullptr);

// Measures one workload (all phases) made by `make`; a null `make` records the kind as unknown.
// Never throws for workload failures: they become a status.
workload_result run_workload(const workload_spec& spec, const workload_factory* make, const runner_options& opts,
                             const std::atomic<bool>& stop);

}  // namespace cudabench
