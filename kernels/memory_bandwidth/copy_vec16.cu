// See copy_vec16.cuh. Each thread keeps `unroll` independent 16-byte loads in flight before it
// stores them (memory-level parallelism: >= 1536 threads/SM x 64 B = 96 KiB in flight per SM, ~3x
// bandwidth x latency on an H200), in a grid of exactly resident blocks striding over the buffer.
// Loads and stores use the streaming (evict-first) cache hint: the data is touched once.
#include "kernels/memory_bandwidth/copy_vec16.cuh"

#include <cstdint>
#include <stdexcept>

#include "cudabench/gpu/cuda_check.hpp"

namespace cudabench::kernels::memory_bandwidth {
namespace {

constexpr int threads = 256;
constexpr int unroll = 4;

// At least 1536 threads resident per SM (the sm_86/sm_89 maximum), so at most 40 registers.
__global__ void __launch_bounds__(threads, 1536 / threads)
    copy_vec16_kernel(uint4* __restrict__ dst, const uint4* __restrict__ src, std::size_t n16,
                      std::uint8_t* __restrict__ dst_tail, const std::uint8_t* __restrict__ src_tail,
                      unsigned tail_bytes) {
  const std::size_t tile = static_cast<std::size_t>(blockDim.x) * unroll;  // uint4s per block per step
  for (std::size_t base = static_cast<std::size_t>(blockIdx.x) * tile + threadIdx.x; base < n16;
       base += static_cast<std::size_t>(gridDim.x) * tile) {
    uint4 v[unroll];
#pragma unroll
    for (int u = 0; u < unroll; ++u) {
      const std::size_t i = base + static_cast<std::size_t>(u) * blockDim.x;
      if (i < n16) v[u] = __ldcs(src + i);
    }
#pragma unroll
    for (int u = 0; u < unroll; ++u) {
      const std::size_t i = base + static_cast<std::size_t>(u) * blockDim.x;
      if (i < n16) __stcs(dst + i, v[u]);
    }
  }
  if (blockIdx.x == 0 && threadIdx.x < tail_bytes) dst_tail[threadIdx.x] = src_tail[threadIdx.x];
}

}  // namespace

int copy_vec16_resident_blocks(int device) {
  int sms = 0, per_sm = 0;
  CUDABENCH_CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  CUDABENCH_CHECK_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, copy_vec16_kernel, threads, 0));
  return sms * (per_sm > 0 ? per_sm : 1);
}

void copy_vec16(void* dst, const void* src, std::size_t bytes, int grid_blocks, cudaStream_t stream) {
  if (reinterpret_cast<std::uintptr_t>(dst) % 16 != 0 || reinterpret_cast<std::uintptr_t>(src) % 16 != 0)
    throw std::invalid_argument("copy_vec16: dst and src must be 16-byte aligned");
  if (grid_blocks < 1) throw std::invalid_argument("copy_vec16: grid_blocks must be >= 1");
  if (bytes == 0) return;
  const std::size_t n16 = bytes / 16;
  const std::size_t tile = static_cast<std::size_t>(threads) * unroll;
  const std::size_t needed = (n16 + tile - 1) / tile;
  const std::size_t cap = static_cast<std::size_t>(grid_blocks);
  const unsigned blocks = static_cast<unsigned>(needed == 0 ? 1 : (needed < cap ? needed : cap));
  auto* d = static_cast<std::uint8_t*>(dst);
  const auto* s = static_cast<const std::uint8_t*>(src);
  copy_vec16_kernel<<<blocks, threads, 0, stream>>>(reinterpret_cast<uint4*>(d), reinterpret_cast<const uint4*>(s), n16,
                                                    d + n16 * 16, s + n16 * 16, static_cast<unsigned>(bytes % 16));
  CUDABENCH_CHECK_LAUNCH();
}

}  // namespace cudabench::kernels::memory_bandwidth
