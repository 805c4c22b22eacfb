// The harness: runs a suite's workloads one at a time through their phases
// (setup -> verify -> warm-up -> timed repetitions -> metrics -> teardown), records clocks,
// memory and a status for each, and rewrites the result file atomically after every workload,
// so a crash or Ctrl-C loses at most the workload in flight. It prints nothing itself: progress
// goes to the run_observer it is given (the CLI's prints lines on stderr). Its options and observer
// are host-only (runner_options.hpp), so the CLI parses and reports a run without CUDA headers.
#pragma once
#include <atomic>
#include <functional>
#include <string>

#include "cudabench/gpu/workload.hpp"
#include "cudabench/result.hpp"
#include "cudabench/runner_options.hpp"
#include "cudabench/suite.hpp"

namespace cudabench {

// Kind name -> the factory that makes its workloads, or null for a kind the caller does not know.
// The caller supplies it (the CLI: gpu/registry.hpp's find_factory), so the harness knows no kind.
using factory_lookup = std::function<const workload_factory*(const std::string& kind)>;

// `stop` is polled between phases; when set (Ctrl-C) the workload in flight is abandoned and
// recorded as skipped, and the rest are not run. `observer` may be null (nothing reported).
result_file run_suite(const suite& s, const factory_lookup& factories, const runner_options& opts,
                      const std::atomic<bool>& stop, run_observer* observer = nullptr);

// Measures one workload (all phases) made by `make`; a null `make` records the kind as unknown.
// Never throws for workload failures: they become a status.
workload_result run_workload(const workload_spec& spec, const workload_factory* make, const runner_options& opts,
                             const std::atomic<bool>& stop);

}  // namespace cudabench
