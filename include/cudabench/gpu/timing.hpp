// Timing helpers over the stream/event owners (cuda_handles.hpp): event-timed enqueues for the
// setup-time tuners, and the L2 flush used by cold-cache mode.
#pragma once
#include <cstddef>

#include <cuda_runtime.h>

#include "cudabench/device_memory.hpp"
#include "cudabench/gpu/cuda_check.hpp"
#include "cudabench/gpu/cuda_handles.hpp"

namespace cudabench {

// Elapsed ms of `fn` enqueued `reps` times back to back on `stream`, between two events. For
// setup-time choices (algorithm or kernel variant tuning), not for the measurement itself.
template <class F>
float time_enqueued_ms(cudaStream_t stream, int reps, F&& fn) {
  cuda_event start, stop;
  start.record(stream);
  for (int i = 0; i < reps; ++i) fn();
  stop.record(stream);
  CUDABENCH_CHECK_CUDA(cudaEventSynchronize(stop.get()));
  return stop.since(start);
}

// Evicts L2 by writing a buffer twice its size (a memset is enough: writes allocate in L2).
class l2_flusher {
 public:
  explicit l2_flusher(std::size_t l2_bytes);
  void flush(cudaStream_t s);

 private:
  device_buffer<unsigned char> buf_;
};

}  // namespace cudabench
