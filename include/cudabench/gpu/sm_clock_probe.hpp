// The SMs' average clock over a timed repetition, counted by their own cycle counters
// (sm_clock_stamps.hpp says why and how; the harness turns it into the `sm_cycles` metric).
// Usage: begin(stream) before the region's start event, end(stream) after its end event, then
// average_mhz(stream), which waits for the stream.
#pragma once
#include <optional>

#include <cuda_runtime.h>

#include "cudabench/sm_clock_stamps.hpp"

namespace cudabench {

class sm_clock_probe {
 public:
  // One stamp slot per SM of `device`, before and after. Allocated with cudaMalloc directly, not
  // through the memory tracker: a few KiB of the harness's own are no workload's footprint (the
  // harness builds it before it starts watching the footprint).
  explicit sm_clock_probe(int device);
  ~sm_clock_probe();
  sm_clock_probe(const sm_clock_probe&) = delete;
  sm_clock_probe& operator=(const sm_clock_probe&) = delete;

  void begin(cudaStream_t stream);  // clears both slot sets, stamps "before"
  void end(cudaStream_t stream);    // stamps "after" and queues the copy back
  // Waits for the stream; the median SM's clock between begin and end, or nothing when the
  // stamps pair no SM (average_sm_clock_mhz's rules).
  std::optional<double> average_mhz(cudaStream_t stream);

 private:
  int sms_ = 0;
  sm_stamp* dev_ = nullptr;   // 2 x sms_: before, then after
  sm_stamp* host_ = nullptr;  // page-locked, so the copy back stays asynchronous
};

}  // namespace cudabench
