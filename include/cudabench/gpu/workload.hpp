// The one interface every workload kind implements (CUTLASS-profiler style phases):
//   setup -> verify -> run (enqueued many times by the harness) -> metrics -> teardown.
// The harness (runner.hpp) owns the stream, warm-up, repetitions, CUDA-event timing, statistics,
// memory accounting, clocks and error capture. A workload only enqueues GPU work on the stream it
// is given and turns the measured per-run times into its metrics.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <cuda_runtime.h>
#include <nlohmann/json.hpp>

#include "cudabench/result.hpp"
#include "cudabench/suite.hpp"

namespace cudabench {

struct run_context {
  cudaStream_t stream = nullptr;  // the one stream all timed work goes on
  int device = 0;
  const cudaDeviceProp* props = nullptr;
  std::uint64_t seed = 0x5eed;  // seeded, reproducible inputs
  // Tuning choices to replay instead of timing candidates (`run --tuning-from FILE`: the
  // workload's `tuning` object from that file); null: tune as usual. A workload that cannot honour
  // a choice (not among this build's candidates) throws input_error naming it.
  const nlohmann::ordered_json* forced_tuning = nullptr;
};

// Thrown by workload::metrics() when a check it can only make once the timed repetitions have run
// (a training step the loss scaler skipped while being timed) fails: the harness records the
// workload as failed_validation with this message. Here and not in errors.hpp: only the GPU layer
// raises or catches it.
class validation_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct validation_outcome {
  bool passed = false;
  double max_rel_error = 0;  // the largest difference found (stated even when passing)
  double tolerance = 0;
  std::string message;  // what was compared and where it failed
};

// What the harness measured, handed to workload::metrics().
// Runs shorter than this (one run, launched alone) are timed as replays of a captured graph when
// the workload allows it (workload::graph_capturable); see docs/design.md "Timing".
inline constexpr double graph_timing_below_ms = 1.0;

struct measurement {
  std::vector<double> per_run_ms;       // one sample per repetition: batch elapsed / runs in batch
  std::uint64_t peak_memory_bytes = 0;  // own allocations + library workspaces, after warm-up
  // Energy per run in J, one per repetition, from NVML's energy counter (energy_metrics.hpp); empty
  // when it was not measured, so a kind's energy-derived metrics (tflops_per_w) are absent too.
  std::vector<double> energy_j_per_run;
};

using metric_list = std::vector<std::pair<std::string, metric>>;

class workload {
 public:
  virtual ~workload() = default;

  // Allocate buffers, create handles/plans, fill seeded random inputs. Not timed.
  // Throw unsupported_error if this GPU/build cannot run the configuration.
  virtual void setup(run_context& ctx) = 0;

  // Run once and check the output against an independent reference. A failed check makes the
  // workload `failed_validation` and nothing is timed.
  virtual validation_outcome verify(run_context& ctx) = 0;

  // Enqueue one run on `stream`; no host synchronisation inside.
  virtual void run(cudaStream_t stream) = 0;

  // May the harness capture run() into a CUDA graph and replay it? It times runs shorter than
  // graph_timing_below_ms that way (the host's launch rate would otherwise be what is measured).
  // Only if run() enqueues stream work and nothing else: no host-side state that changes from run
  // to run, no synchronisation, no allocation, no pageable copy, and nothing a graph runs another
  // way (a captured cudaMemcpyAsync becomes a copy node, which may take a different, slower path).
  // A capture that fails anyway falls back to launching runs one by one.
  virtual bool graph_capturable() const { return false; }

  // Called after each timed repetition, once the stream is synchronised. For single-shot
  // measurements that belong to a repetition (e.g. first-inference latency on a fresh model,
  // time to first token read from the workload's own events).
  virtual void after_repetition(run_context& /*ctx*/) {}

  // Called once right before the first timed repetition (after warm-up, batch sizing and any graph
  // capture; the stream is synchronised), so a workload can tell what happened while it was timed
  // from what happened before.
  virtual void before_timing(run_context& /*ctx*/) {}

  // Turn the measurement into named metrics; the first is the kind's headline metric. Throws
  // validation_error when something seen only after timing makes the measurement invalid.
  virtual metric_list metrics(const measurement& m) const = 0;

  // Release everything. Also runs (through the destructor) when an earlier phase threw.
  virtual void teardown() {}

  // What setup's tuners chose, as a JSON object the same workload accepts back through
  // run_context::forced_tuning; empty for kinds without tuning. Recorded in the result file.
  virtual nlohmann::ordered_json tuning() const { return nlohmann::ordered_json::object(); }
};

// Helpers for metrics(): time per run in ms, and a rate from an amount per run.
metric time_metric(const std::vector<double>& per_run_ms);
// value = amount_per_run / (ms * 1e-3) / scale, e.g. flops with scale 1e12 -> TFLOP/s.
metric rate_metric(const std::string& unit, double amount_per_run, double scale, const std::vector<double>& per_run_ms);

// Makes one kind's workload from its validated spec (registry.hpp lists one per built-in kind).
using workload_factory = std::function<std::unique_ptr<workload>(const workload_spec&)>;

}  // namespace cudabench
