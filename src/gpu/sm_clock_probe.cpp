// See sm_clock_probe.hpp.
#include "cudabench/gpu/sm_clock_probe.hpp"

#include <vector>

#include "cudabench/gpu/cuda_check.hpp"
#include "kernels/common/sm_stamp.cuh"

namespace cudabench {

sm_clock_probe::sm_clock_probe(int device) {
  CUDABENCH_CHECK_CUDA(cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, device));
  CUDABENCH_CHECK_CUDA(cudaMalloc(&dev_, 2 * static_cast<std::size_t>(sms_) * sizeof(sm_stamp)));
  const cudaError_t pinned = cudaMallocHost(&host_, 2 * static_cast<std::size_t>(sms_) * sizeof(sm_stamp));
  if (pinned != cudaSuccess) {
    host_ = nullptr;
    (void)cudaFree(dev_);  // the destructor does not run for a constructor that throws
    dev_ = nullptr;
    CUDABENCH_CHECK_CUDA(pinned);
  }
}

sm_clock_probe::~sm_clock_probe() {
  // A destructor never throws, and a failed free must not be left in the last-error slot for the
  // next workload's launch checks.
  if (dev_) (void)cudaFree(dev_);
  if (host_) (void)cudaFreeHost(host_);
  (void)cudaGetLastError();
}

void sm_clock_probe::begin(cudaStream_t stream) {
  CUDABENCH_CHECK_CUDA(cudaMemsetAsync(dev_, 0, 2 * static_cast<std::size_t>(sms_) * sizeof(sm_stamp), stream));
  kernels::stamp_sm_clocks(dev_, sms_, stream);
}

void sm_clock_probe::end(cudaStream_t stream) {
  kernels::stamp_sm_clocks(dev_ + sms_, sms_, stream);
  CUDABENCH_CHECK_CUDA(cudaMemcpyAsync(host_, dev_, 2 * static_cast<std::size_t>(sms_) * sizeof(sm_stamp),
                                       cudaMemcpyDeviceToHost, stream));
}

std::optional<double> sm_clock_probe::average_mhz(cudaStream_t stream) {
  CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(stream));
  const std::vector<sm_stamp> before(host_, host_ + sms_);
  const std::vector<sm_stamp> after(host_ + sms_, host_ + 2 * sms_);
  return average_sm_clock_mhz(before, after);
}

}  // namespace cudabench
