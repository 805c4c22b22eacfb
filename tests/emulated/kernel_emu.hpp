// Runs real CUDA kernels (.cu files of plain CUDA C++) on the CPU, so CI -- which has no GPU --
// checks what they compute. Force-included (-include) into a copy of the .cu file whose
// `k<<<grid, block, smem, stream>>>(args)` launches CMake rewrote into
// `::cuda_emu::launcher(grid, block, smem, stream).run(k, args)` (tests/CMakeLists.txt,
// cudabench_emulate_kernels).
//
// The model of execution is CUDA's, scaled down: blocks run one after another; a block's threads
// are fibers on one OS thread (kernel_emu.cpp), each running until it returns or reaches a barrier
// -- __syncthreads, or the warp barrier behind __syncwarp and every shuffle -- which opens when all
// live threads of the block (the warp) have reached it. Between barriers the threads run in
// ascending order, or descending with CUDA_EMU_ORDER=reverse. __shared__ memory is one array per
// block (a function-local static: blocks never overlap); a warp is 32 consecutive threads, whose
// shuffles exchange through a slot array between two warp barriers; dynamic shared memory
// (`extern __shared__`) is one buffer of the launch's size, refilled with 0xcd before each block;
// fences are no-ops and cache-hinted loads plain loads; a thread that returns leaves
// the barriers, as an exited CUDA thread does. What it cannot run: tensor-core instructions, inline
// PTX, texture or cooperative-groups calls -- such a kernel does not compile here, which is the
// intended failure. What it cannot find: timing-dependent races beyond the two orders, and memory
// model subtleties (compute-sanitizer on the GPU box does). Warp-synchronous code without
// __syncwarp gets wrong results here, as it may on Volta and later.
#pragma once
// Kernel sources with a launch helper of their own (kernels/llm_decode/launch.cuh) route it through
// the emulator when this is defined.
#define CUDABENCH_KERNEL_EMULATOR 1

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>

#include <cuda_runtime.h>  // the real types (dim3, cudaStream_t, cudaError_t), for ABI-identical calls

// The real headers define these as attributes g++ ignores; here they mean what the emulator does.
#undef __global__
#undef __device__
#undef __host__
#undef __shared__
#undef __forceinline__
#undef __launch_bounds__
#undef __noinline__
#define __global__
#define __device__
#define __host__
#define __shared__ static
#define __forceinline__ inline
#define __noinline__
#define __launch_bounds__(...)

namespace cuda_emu {

struct thread_coords {
  uint3 thread, block;
  dim3 block_dim, grid_dim;
};
extern thread_local thread_coords here;

// Every block of the grid runs `body`, one block after another, the block's threads concurrently;
// returns when the last block has finished. `dynamic_smem` bytes back dynamic_shared().
void run_grid(const dim3& grid, const dim3& block, const std::function<void()>& body, std::size_t dynamic_smem = 0);

// The launch's dynamic shared memory (the smem argument of <<<...>>>): cudabench_emulate_kernels
// rewrites `extern __shared__ T name[];` into a pointer to it. 128-byte aligned; filled with 0xcd
// bytes before each block, so a kernel that reads it before writing sees garbage here as on a GPU.
void* dynamic_shared();

void sync_block();  // __syncthreads
void sync_warp();   // __syncwarp
// The 8 bytes of `value` exchanged with lane `src_lane` of this thread's warp (all lanes take part).
std::uint64_t exchange(std::uint64_t value, int src_lane);
int lane();

class launcher {
 public:
  explicit launcher(dim3 grid, dim3 block, std::size_t shared_bytes = 0, cudaStream_t stream = nullptr)
      : grid_(grid), block_(block), shared_bytes_(shared_bytes) {
    (void)stream;
  }
  // Arguments are copied once, as a launch copies them into the parameter buffer.
  template <class Kernel, class... Args>
  void run(Kernel kernel, Args... args) const {
    run_grid(
        grid_, block_, [&] { kernel(args...); }, shared_bytes_);
  }

 private:
  dim3 grid_, block_;
  std::size_t shared_bytes_;
};

template <class T>
T shuffle(T v, int src_lane) {
  static_assert(sizeof(T) <= 8, "shuffles move at most 8 bytes");
  std::uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof(T));
  bits = exchange(bits, src_lane);
  T out;
  std::memcpy(&out, &bits, sizeof(T));
  return out;
}

}  // namespace cuda_emu

#define threadIdx (::cuda_emu::here.thread)
#define blockIdx (::cuda_emu::here.block)
#define blockDim (::cuda_emu::here.block_dim)
#define gridDim (::cuda_emu::here.grid_dim)

inline void __syncthreads() { ::cuda_emu::sync_block(); }
inline void __syncwarp(unsigned = 0xffffffffu) { ::cuda_emu::sync_warp(); }
template <class T>
T __shfl_xor_sync(unsigned, T v, int lane_mask, int = 32) {
  return ::cuda_emu::shuffle(v, ::cuda_emu::lane() ^ lane_mask);
}
template <class T>
T __shfl_sync(unsigned, T v, int src_lane, int = 32) {
  return ::cuda_emu::shuffle(v, src_lane & 31);
}
template <class T>
T __shfl_down_sync(unsigned, T v, unsigned delta, int = 32) {
  const int src = ::cuda_emu::lane() + static_cast<int>(delta);
  const T other = ::cuda_emu::shuffle(v, src < 32 ? src : ::cuda_emu::lane());
  return other;
}

// A block's threads are fibers on one OS thread and never preempted, so a plain add is atomic.
template <class T>
T atomicAdd(T* p, T v) {
  const T old = *p;
  *p = old + v;
  return old;
}
// Blocks run one after another and their threads never overlap a memory access: every write is
// visible to every later read, so fences have nothing to order.
inline void __threadfence() {}
// nvcc's cuda_runtime.h adds these overloads for kernel pointers; g++ sees only the C functions.
template <class... P>
cudaError_t cudaFuncSetAttribute(void (*kernel)(P...), cudaFuncAttribute attr, int value) {
  return ::cudaFuncSetAttribute(reinterpret_cast<const void*>(kernel), attr, value);
}
template <class... P>
cudaError_t cudaFuncGetAttributes(cudaFuncAttributes* attr, void (*kernel)(P...)) {
  return ::cudaFuncGetAttributes(attr, reinterpret_cast<const void*>(kernel));
}
// Cache-hinted loads are plain loads.
template <class T>
T __ldcs(const T* p) {
  return *p;
}
template <class T>
T __ldg(const T* p) {
  return *p;
}
template <class T>
T __ldcg(const T* p) {
  return *p;
}

inline float __uint_as_float(unsigned u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}
inline unsigned __float_as_uint(float f) {
  unsigned u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}
inline float rsqrtf(float x) { return 1.f / std::sqrt(x); }
inline float __expf(float x) { return std::exp(x); }
inline float __logf(float x) { return std::log(x); }
inline float __fdividef(float a, float b) { return a / b; }
inline float __saturatef(float x) { return std::min(1.f, std::max(0.f, x)); }
[[noreturn]] inline void __trap() { std::abort(); }
using std::isinf;
using std::isnan;
using std::max;
using std::min;
