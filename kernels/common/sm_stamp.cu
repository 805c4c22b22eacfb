// See sm_stamp.cuh.
#include "kernels/common/sm_stamp.cuh"

#include "cudabench/gpu/cuda_check.hpp"

namespace cudabench::kernels {
namespace {

__global__ void stamp_kernel(sm_stamp* out) {
  if (threadIdx.x != 0) return;
  unsigned smid = 0;
  unsigned long long ns = 0;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
  // The timer and the counter read back to back, the timer first: the pair describes one moment to
  // within a few cycles, far below the 100 us minimum window.
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(ns));
  const long long cycles = clock64();
  sm_stamp s;
  s.cycles = static_cast<std::uint64_t>(cycles);
  s.ns = ns;
  s.smid = smid;
  s.written = 1;
  out[blockIdx.x] = s;
}

}  // namespace

void stamp_sm_clocks(sm_stamp* out, int blocks, cudaStream_t stream) {
  stamp_kernel<<<blocks, 32, 0, stream>>>(out);
  CUDABENCH_CHECK_LAUNCH();
}

}  // namespace cudabench::kernels
