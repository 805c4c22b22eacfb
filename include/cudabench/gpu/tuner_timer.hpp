// GPU time of one call of a short, stream-only enqueue, for the setup-time tuners (cuBLASLt
// algorithms, LLM GEMV variants): the call is captured into a CUDA graph many times over and the
// graph replayed, so what is timed is the GPU's work and not the host's launch rate.
//
// Why: tuners used to time a loop of launches. For a 5 us kernel the loop measures how fast this
// host launches, which wanders between processes, so two processes of one binary picked different
// candidates and then measured them 7-25% apart (1024^3 GEMMs and llama-tiny, A/A on the H200,
// 2026-12-04) - the noise came from the choice, not from the timed runs. The harness already
// times such runs as graph replays (measure.cpp); the tuners now judge candidates the same way.
#pragma once
#include <cstddef>
#include <functional>
#include <vector>

#include <cuda_runtime.h>

#include "cudabench/gpu/cuda_handles.hpp"

namespace cudabench {

class tuner_timer {
 public:
  // `enqueue` puts one call's work on `stream` (no host synchronisation, no allocation); it is run
  // once uncaptured first (lazy library setup and kernel attributes happen outside the capture)
  // and then captured enough times for one replay to cover ~0.5 ms of GPU time. If the capture
  // fails (a library call that cannot be captured) the timer falls back to a launch loop.
  tuner_timer(cudaStream_t stream, std::function<void()> enqueue);

  // One measurement: GPU ms per call, averaged over replays lasting at least `min_ms`.
  double per_call_ms(double min_ms = 2.0);

  bool captured() const { return static_cast<bool>(graph_); }
  long calls_per_replay() const { return calls_per_replay_; }

 private:
  cudaStream_t stream_;
  std::function<void()> enqueue_;
  graph_exec graph_;
  long calls_per_replay_ = 1;
  double one_call_ms_ = 0;  // from one launched call: sizes the graph and the first measurement
};

// The setup-time tuners' contest (cuBLASLt candidates of the matmul kind and of llm_decode's
// prefill GEMMs, the decode GEMV variants): candidate i's call is `enqueue(i)`, timed by a
// tuner_timer. `passes` interleave the candidates, so a clock ramp or a one-off stall hits all of
// them alike, and each keeps its best pass of at least `min_ms`. A candidate for which `runs(i)`
// is false (it cannot run here) is skipped. Returns GPU ms per call, infinity for those skipped;
// pick_fastest chooses among them.
std::vector<double> time_candidates(cudaStream_t stream, std::size_t count, int passes, double min_ms,
                                    const std::function<void(std::size_t)>& enqueue,
                                    const std::function<bool(std::size_t)>& runs = {});

}  // namespace cudabench
