// A batch of back-to-back calls captured into one CUDA graph and replayed as one launch, shared by
// the harness's timing of short runs (measure.cpp) and the setup-time tuners (tuner_timer.hpp).
//
// Why: for calls of a few microseconds the host cannot launch them one by one as fast as the GPU
// finishes them, so a loop of launches times the host's launch rate (1024^3 GEMMs spread 17-27%
// between processes that way on the H200's VM); a replayed graph keeps the GPU fed. One replay
// should cover ~0.5 ms of GPU time, so its own launch (a few us) is amortised.
#pragma once
#include <functional>

#include <cuda_runtime.h>

#include "cudabench/gpu/cuda_handles.hpp"

namespace cudabench {

struct graph_batch {
  graph_exec exec;
  long calls = 0;  // calls per replay
  explicit operator bool() const { return static_cast<bool>(exec); }
};

constexpr double kGraphReplayMs = 0.5;  // GPU time one replay should cover
constexpr long kMaxCallsPerGraph = 256;

// Calls per replay for calls taking `one_call_ms` each: enough to cover kGraphReplayMs, at least
// 1 and at most kMaxCallsPerGraph.
long calls_per_replay(double one_call_ms);

// Captures `calls` calls of `enqueue(stream)` on `stream` into one graph. Empty when the capture
// fails (a call that cannot be captured, such as a host synchronisation); the capture error is
// cleared from the last-error slot, so the caller can fall back to launching calls one by one.
graph_batch capture_graph_batch(cudaStream_t stream, long calls, const std::function<void(cudaStream_t)>& enqueue);

}  // namespace cudabench
