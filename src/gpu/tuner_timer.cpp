// See tuner_timer.hpp.
#include "cudabench/gpu/tuner_timer.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <memory>
#include <utility>

#include "cudabench/gpu/cuda_check.hpp"
#include "cudabench/gpu/graph_batch.hpp"
#include "cudabench/gpu/timing.hpp"

namespace cudabench {
namespace {

constexpr long kMaxReplays = 100000;  // bounds a measurement whose per-call estimate was far too high

long at_least(double ms, double per_ms, long most) {
  return std::clamp<long>(static_cast<long>(std::ceil(ms / std::max(per_ms, 1e-5))), 1, most);
}

}  // namespace

tuner_timer::tuner_timer(cudaStream_t stream, std::function<void()> enqueue)
    : stream_(stream), enqueue_(std::move(enqueue)) {
  enqueue_();  // first-call costs (module load, lazy library setup) stay outside everything timed
  CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(stream_));
  one_call_ms_ = time_enqueued_ms(stream_, 1, enqueue_);  // launch-inclusive: errs high, sizes only
  graph_batch batch =
      capture_graph_batch(stream_, cudabench::calls_per_replay(one_call_ms_), [this](cudaStream_t) { enqueue_(); });
  if (!batch) return;  // launched call by call
  try {
    batch.exec.launch(stream_);  // the first replay uploads the graph
    CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(stream_));
  } catch (const std::exception&) {
    (void)cudaGetLastError();  // launched call by call
    return;
  }
  graph_ = std::move(batch.exec);
  calls_per_replay_ = batch.calls;
}

double tuner_timer::per_call_ms(double min_ms) {
  double ms = 0;
  long calls = 0;
  if (graph_) {
    const long replays = at_least(min_ms, one_call_ms_ * static_cast<double>(calls_per_replay_), kMaxReplays);
    ms = time_enqueued_ms(stream_, static_cast<int>(replays), [this] { graph_.launch(stream_); });
    calls = replays * calls_per_replay_;
  } else {
    calls = at_least(min_ms, one_call_ms_, kMaxReplays);
    ms = time_enqueued_ms(stream_, static_cast<int>(calls), enqueue_);
  }
  const double per_call = ms / static_cast<double>(calls);
  one_call_ms_ = per_call;  // the next measurement is sized from what the GPU really took
  return per_call;
}

std::vector<double> time_candidates(cudaStream_t stream, std::size_t count, int passes, double min_ms,
                                    const std::function<void(std::size_t)>& enqueue,
                                    const std::function<bool(std::size_t)>& runs) {
  std::vector<std::unique_ptr<tuner_timer>> timers(count);
  for (std::size_t i = 0; i < count; ++i)
    if (!runs || runs(i)) timers[i] = std::make_unique<tuner_timer>(stream, [&enqueue, i] { enqueue(i); });
  std::vector<double> ms(count, std::numeric_limits<double>::infinity());
  for (int pass = 0; pass < passes; ++pass)
    for (std::size_t i = 0; i < count; ++i)
      if (timers[i]) ms[i] = std::min(ms[i], timers[i]->per_call_ms(min_ms));
  return ms;
}

}  // namespace cudabench
