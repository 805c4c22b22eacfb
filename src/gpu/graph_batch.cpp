// See graph_batch.hpp.
#include "cudabench/gpu/graph_batch.hpp"

#include <algorithm>
#include <cmath>
#include <exception>

namespace cudabench {

long calls_per_replay(double one_call_ms) {
  return std::clamp<long>(static_cast<long>(std::ceil(kGraphReplayMs / std::max(one_call_ms, 1e-5))), 1,
                          kMaxCallsPerGraph);
}

graph_batch capture_graph_batch(cudaStream_t stream, long calls, const std::function<void(cudaStream_t)>& enqueue) {
  graph_batch b;
  try {
    b.exec.capture(stream, [&](cudaStream_t s) {
      for (long i = 0; i < calls; ++i) enqueue(s);
    });
    b.calls = calls;
  } catch (const std::exception&) {
    b.exec.reset();
    (void)cudaGetLastError();  // capture errors are not sticky; clear the last-error slot
  }
  return b;
}

}  // namespace cudabench
