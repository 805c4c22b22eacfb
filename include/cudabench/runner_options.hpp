// What a caller hands the harness (gpu/runner.hpp) besides the kinds' factories: the options of a
// run and the observer it reports progress to. Host-only, so the CLI's option parsing (`run`, `ab`)
// and progress printing build without CUDA headers.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cudabench/result.hpp"
#include "cudabench/suite.hpp"

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

}  // namespace cudabench
