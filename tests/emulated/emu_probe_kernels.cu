// Small kernels that exercise what the kernel emulator (kernel_emu.hpp) provides: thread and block
// coordinates in three dimensions, __shared__ memory with __syncthreads, the shared warp
// reductions of kernels/common/reduce.cuh, threads that return early, and atomicAdd. Compiled only
// through the emulator (test_kernel_emu.cpp checks the results against host arithmetic).
#include "emu_probe_kernels.cuh"

#include "kernels/common/reduce.cuh"

namespace cudabench::emu_probe {
namespace {

__global__ void coordinates_kernel(int* out) {
  const int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const int bid = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  const int threads = blockDim.x * blockDim.y * blockDim.z;
  out[bid * threads + tid] =
      ((blockIdx.z * 16 + blockIdx.y) * 16 + blockIdx.x) * 4096 + (threadIdx.z * 16 + threadIdx.y) * 16 + threadIdx.x;
}

// Each block reverses its slice through shared memory: every thread reads what another wrote.
__global__ void reverse_kernel(const float* in, float* out) {
  __shared__ float tile[256];
  const int base = blockIdx.x * blockDim.x;
  tile[threadIdx.x] = in[base + threadIdx.x];
  __syncthreads();
  out[base + threadIdx.x] = tile[blockDim.x - 1 - threadIdx.x];
}

__global__ void warp_sums_kernel(const float* in, float* sums, float* maxima) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const float s = kernels::warp_sum(in[i]), m = kernels::warp_max(in[i]);
  if (threadIdx.x % 32 == 0) {
    sums[i / 32] = s;
    maxima[i / 32] = m;
  }
}

// Threads past `n` leave at once; the rest still meet at the barrier (exited threads do not
// count, as on sm_70 and later) and sum their block through shared memory.
__global__ void ragged_block_sum_kernel(const float* in, int n, float* out) {
  __shared__ float part[128];
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  part[threadIdx.x] = in[i];
  __syncthreads();
  if (threadIdx.x == 0) {
    const int live = min(static_cast<int>(blockDim.x), n - static_cast<int>(blockIdx.x * blockDim.x));
    float s = 0.f;
    for (int k = 0; k < live; ++k) s += part[k];
    out[blockIdx.x] = s;
  }
}

__global__ void atomic_count_kernel(float* total) { atomicAdd(total, 1.f); }

// A bug on purpose: each thread reads its right neighbour's shared value with no barrier between
// the write and the read. On a GPU the result depends on warp timing; in the emulator it depends on
// the order its threads run in, so one of the two orders ctest runs must get it wrong.
__global__ void missing_barrier_kernel(const int* in, int* out) {
  __shared__ int tile[64];
  tile[threadIdx.x] = in[threadIdx.x];
  out[threadIdx.x] = tile[(threadIdx.x + 1) % 64];
}

// Dynamic shared memory, sized by the launch: each block reverses its `n`-element slice through
// it, read as two views (the aligned declaration nvcc code uses, and floats).
__global__ void dynamic_reverse_kernel(const float* in, float* out, int n) {
  extern __shared__ __align__(16) unsigned char raw[];
  float* tile = reinterpret_cast<float*>(raw);
  const int base = blockIdx.x * n;
  for (int i = threadIdx.x; i < n; i += blockDim.x) tile[i] = in[base + i];
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[base + i] = tile[n - 1 - i];
}

}  // namespace

void coordinates(int* out, dim3 grid, dim3 block) { coordinates_kernel<<<grid, block>>>(out); }
void reverse(const float* in, float* out, int blocks) { reverse_kernel<<<blocks, 256>>>(in, out); }
void warp_sums(const float* in, float* sums, float* maxima, int blocks) {
  warp_sums_kernel<<<blocks, 96, 0, nullptr>>>(in, sums, maxima);
}
void ragged_block_sum(const float* in, int n, float* out) {
  ragged_block_sum_kernel<<<(n + 127) / 128, 128>>>(in, n, out);
}
void atomic_count(float* total, int blocks, int threads) { atomic_count_kernel<<<blocks, threads>>>(total); }
void missing_barrier(const int* in, int* out) { missing_barrier_kernel<<<1, 64>>>(in, out); }
void dynamic_reverse(const float* in, float* out, int n, int blocks) {
  dynamic_reverse_kernel<<<blocks, 64, n * sizeof(float)>>>(in, out, n);
}

}  // namespace cudabench::emu_probe
