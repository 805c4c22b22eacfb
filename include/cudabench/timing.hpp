// RAII CUDA stream/event wrappers and the L2 flush used by cold-cache mode. GPU work is timed with
// events on one stream only -- never host timers.
#pragma once
#include <cstddef>

#include <cuda_runtime.h>

#include "cudabench/cuda_check.hpp"
#include "cudabench/device_memory.hpp"

namespace cudabench {

class cuda_stream {
 public:
  cuda_stream();
  ~cuda_stream();
  cuda_stream(const cuda_stream&) = delete;
  cuda_stream& operator=(const cuda_stream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

class cuda_event {
 public:
  cuda_event();
  ~cuda_event();
  cuda_event(const cuda_event&) = delete;
  cuda_event& operator=(const cuda_event&) = delete;
  void record(cudaStream_t s);
  cudaEvent_t get() const { return e_; }
  // Milliseconds from `start` to this event; both must have completed.
  float since(const cuda_event& start) const;

 private:
  cudaEvent_t e_ = nullptr;
};

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
