// RAII CUDA stream/event wrappers and the L2 flush used by cold-cache mode. GPU work is timed with
// events on one stream only -- never host timers.
#pragma once
#include <cstddef>

#include <cuda_runtime.h>

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

// Evicts L2 by writing a buffer twice its size (a memset is enough: writes allocate in L2).
class l2_flusher {
 public:
  explicit l2_flusher(std::size_t l2_bytes);
  void flush(cudaStream_t s);

 private:
  device_buffer<unsigned char> buf_;
};

}  // namespace cudabench
