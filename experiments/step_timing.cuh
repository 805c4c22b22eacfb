// What both decode experiments time with: GPU ms per call of an enqueue (one untimed call first,
// then `n` back to back between two events, cudabench's time_enqueued_ms), and the device-to-device
// copy bandwidth that sets a decode step's floor, measured as the suite's memory_bandwidth row
// measures it (1 GiB, read + write counted).
#pragma once
#include <cstddef>

#include <cuda_runtime.h>

#include "cudabench/device_memory.hpp"
#include "cudabench/gpu/cuda_check.hpp"
#include "cudabench/gpu/timing.hpp"

namespace experiments {

template <class F>
float per_call_ms(cudaStream_t s, int n, F&& body) {
  body();
  return cudabench::time_enqueued_ms(s, n, body) / static_cast<float>(n);
}

inline double d2d_copy_gbps(cudaStream_t s) {
  constexpr std::size_t bytes = std::size_t{1} << 30;
  const cudabench::device_buffer<char> src(bytes), dst(bytes);
  const float ms = per_call_ms(s, 20, [&] {
    CUDABENCH_CHECK_CUDA(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, s));
  });
  return 2.0 * bytes / (ms * 1e-3) / 1e9;
}

}  // namespace experiments
