// See device_count.hpp.
#include "cudabench/device_count.hpp"

#include <cuda_runtime.h>

#include "cudabench/env.hpp"

namespace cudabench {

int cuda_device_count() {
  require_device(0);  // the messages for no driver, no GPU, a driver too old
  int n = 0;
  cudaGetDeviceCount(&n);
  return n;
}

}  // namespace cudabench
