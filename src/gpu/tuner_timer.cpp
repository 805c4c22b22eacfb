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
#include "cudabench/gpu/sm_clock_probe.hpp"
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

double tuner_timer::per_call_ms(double min_ms) { return timed_per_call_ms(min_ms, nullptr); }

tuner_timer::sample tuner_timer::measure(double min_ms, sm_clock_probe& probe) {
  sample s;
  s.ms = timed_per_call_ms(min_ms, &probe);
  s.mhz = probe.average_mhz(stream_);
  return s;
}

double tuner_timer::timed_per_call_ms(double min_ms, sm_clock_probe* probe) {
  long calls = 0;
  std::function<void()> one;
  if (graph_) {
    calls = at_least(min_ms, one_call_ms_ * static_cast<double>(calls_per_replay_), kMaxReplays);
    one = [this] { graph_.launch(stream_); };
  } else {
    calls = at_least(min_ms, one_call_ms_, kMaxReplays);
    one = enqueue_;
  }
  cuda_event start, stop;
  if (probe) probe->begin(stream_);  // outside the events: counted, not timed
  start.record(stream_);
  for (long i = 0; i < calls; ++i) one();
  stop.record(stream_);
  if (probe) probe->end(stream_);
  CUDABENCH_CHECK_CUDA(cudaEventSynchronize(stop.get()));
  if (graph_) calls *= calls_per_replay_;
  const double per_call = static_cast<double>(stop.since(start)) / static_cast<double>(calls);
  one_call_ms_ = per_call;  // the next measurement is sized from what the GPU really took
  return per_call;
}

std::vector<double> time_candidates(cudaStream_t stream, std::size_t count, int passes, double min_ms,
                                    const std::function<void(std::size_t)>& enqueue,
                                    const std::function<bool(std::size_t)>& runs) {
  return count_candidates(stream, count, passes, min_ms, nullptr, enqueue, runs).ms;
}

contest_costs count_candidates(cudaStream_t stream, std::size_t count, int passes, double min_ms, sm_clock_probe* probe,
                               const std::function<void(std::size_t)>& enqueue,
                               const std::function<bool(std::size_t)>& runs) {
  std::vector<std::unique_ptr<tuner_timer>> timers(count);
  for (std::size_t i = 0; i < count; ++i)
    if (!runs || runs(i)) timers[i] = std::make_unique<tuner_timer>(stream, [&enqueue, i] { enqueue(i); });
  contest_costs c;
  c.ms.assign(count, std::numeric_limits<double>::infinity());
  if (probe) c.kcycles.assign(count, std::numeric_limits<double>::quiet_NaN());
  for (int pass = 0; pass < passes; ++pass)
    for (std::size_t i = 0; i < count; ++i) {
      if (!timers[i]) continue;
      if (!c.kcycles.empty()) {
        try {
          const tuner_timer::sample s = timers[i]->measure(min_ms, *probe);
          c.ms[i] = std::min(c.ms[i], s.ms);
          // ms x MHz = kilocycles. A measurement whose stamps paired no SM adds no count; a
          // candidate with none at all keeps its NaN, and the contest is then ranked by time.
          if (s.mhz) c.kcycles[i] = std::fmin(c.kcycles[i], s.ms * *s.mhz);
          continue;
        } catch (const std::exception&) {
          // The probe failed (its stamp kernel or copy): the contest goes on by time alone, this
          // pass re-timed without it. A failure of the candidate itself is sticky, so it throws
          // again below.
          (void)cudaGetLastError();
          c.kcycles.clear();
        }
      }
      c.ms[i] = std::min(c.ms[i], timers[i]->per_call_ms(min_ms));
    }
  return c;
}

}  // namespace cudabench
