// Programmatic dependent launch (PDL, sm_90+) for the decode step's kernels.
//
// A decode step is ~200 short kernels in a row; between two of them the GPU would otherwise sit
// idle for the launch latency and the tail of the first. With PDL the next kernel is launched
// while the previous one drains: each kernel first does what does not depend on its predecessor
// (the GEMV issues its weight loads: weights never change), then pdl_wait() -- which returns once
// every earlier kernel in the stream has finished and its writes are visible -- and only then
// touches activations. Every kernel here calls pdl_wait() before its first read or write of
// anything another kernel writes, so results are the same with PDL on or off; without the launch
// attribute (prefill, tests, older GPUs) pdl_wait() returns at once.
//
// The host side is a thread-local switch the engine turns on while it captures the decode graph
// (programmatic_launch_scope); launch() then adds the attribute.
#pragma once
#include <cuda_runtime.h>

namespace cudabench::kernels::llm_decode {

bool programmatic_launch();  // is the switch on for this thread?

class programmatic_launch_scope {
 public:
  explicit programmatic_launch_scope(bool on);
  ~programmatic_launch_scope();
  programmatic_launch_scope(const programmatic_launch_scope&) = delete;
  programmatic_launch_scope& operator=(const programmatic_launch_scope&) = delete;

 private:
  bool previous_;
};

}  // namespace cudabench::kernels::llm_decode

#if defined(__CUDACC__) || defined(CUDABENCH_KERNEL_EMULATOR)
#include <cstddef>
#include <utility>

#include "cudabench/gpu/cuda_check.hpp"

namespace cudabench::kernels::llm_decode {

// Wait for the preceding kernels (no-op unless launched with the PDL attribute on sm_90+).
__device__ __forceinline__ void pdl_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

// Let the next kernel in the stream be scheduled (it still waits for us in its pdl_wait()).
__device__ __forceinline__ void pdl_trigger() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// kernel<<<grid, block, smem, stream>>>(args...), with the PDL attribute when the switch is on;
// checks the launch.
template <class... Params, class... Args>
void launch(void (*kernel)(Params...), dim3 grid, dim3 block, std::size_t smem, cudaStream_t stream, Args&&... args) {
#ifdef CUDABENCH_KERNEL_EMULATOR  // the CPU emulator (tests/emulated): one launch path, no PDL to emulate
  ::cuda_emu::launcher(grid, block, smem, stream).run(kernel, std::forward<Args>(args)...);
#else
  if (programmatic_launch()) {
    cudaLaunchConfig_t config = {};
    config.gridDim = grid;
    config.blockDim = block;
    config.dynamicSmemBytes = smem;
    config.stream = stream;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    config.attrs = attr;
    config.numAttrs = 1;
    CUDABENCH_CHECK_CUDA(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
  } else {
    kernel<<<grid, block, smem, stream>>>(std::forward<Args>(args)...);
  }
  CUDABENCH_CHECK_LAUNCH();
#endif
}

}  // namespace cudabench::kernels::llm_decode
#endif
