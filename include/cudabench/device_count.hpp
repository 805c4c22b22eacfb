// The number of CUDA devices this process can see (cudaGetDeviceCount: honours
// CUDA_VISIBLE_DEVICES, unlike NVML). `cudabench env --count` prints it, so a parent that must not
// create a CUDA context itself (`run --devices all`) can ask a short child.
#pragma once

namespace cudabench {

// Throws runtime_failure (exit 3) with require_device's plain message when there is no usable
// device (no driver, no GPU, driver older than the runtime).
int cuda_device_count();

}  // namespace cudabench
