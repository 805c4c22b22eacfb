// See byte_pattern.cuh. Grid-stride loops over 8-byte words (coalesced 8-byte accesses); the tail
// of < 8 bytes is handled by one thread. Checks count per thread and only touch the global report
// (atomics) when a thread found a mismatch, so an intact buffer costs one read and no contention.
#include "kernels/memory_bandwidth/byte_pattern.cuh"

#include <cstdint>
#include <stdexcept>
#include <string>

#include "cudabench/gpu/cuda_check.hpp"

namespace cudabench::kernels::memory_bandwidth {
namespace {

constexpr int threads = 256;

unsigned grid_for(std::size_t items) {
  const std::size_t blocks = (items + threads - 1) / threads;
  // Enough blocks to fill any current GPU several times over; the loops stride past the rest.
  return static_cast<unsigned>(blocks < 8192 ? (blocks > 0 ? blocks : 1) : 8192);
}

void require_aligned(const void* p, const char* what) {
  if (reinterpret_cast<std::uintptr_t>(p) % 8 != 0)
    throw std::invalid_argument(std::string(what) + ": pointer must be 8-byte aligned");
}

__global__ void fill_byte_pattern_kernel(std::uint64_t* words, std::size_t n_words, std::uint8_t* tail,
                                         std::size_t tail_bytes, byte_pattern pattern) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t tid = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  for (std::size_t w = tid; w < n_words; w += stride) words[w] = pattern.word(w);
  if (tid == 0)
    for (std::size_t t = 0; t < tail_bytes; ++t) tail[t] = pattern.byte(n_words * 8 + t);
}

__global__ void reset_report_kernel(mismatch_report* report) { *report = mismatch_report{}; }

__global__ void count_mismatches_kernel(const std::uint64_t* words, std::size_t n_words, const std::uint8_t* tail,
                                        std::size_t tail_bytes, byte_pattern pattern, mismatch_report* report) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  const std::size_t tid = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  unsigned long long bad = 0, first = ~0ull;
  for (std::size_t w = tid; w < n_words; w += stride) {
    if (words[w] != pattern.word(w)) {
      if (bad == 0) first = w * 8;  // w only grows within a thread, so the first hit is its lowest
      ++bad;
    }
  }
  if (tid == 0) {
    for (std::size_t t = 0; t < tail_bytes; ++t) {
      if (tail[t] != pattern.byte(n_words * 8 + t)) {
        ++bad;  // the whole tail counts as one word
        if (first == ~0ull) first = n_words * 8;
        break;
      }
    }
  }
  if (bad != 0) {
    atomicAdd(&report->mismatched_words, bad);
    atomicMin(&report->first_offset, first);
  }
}

}  // namespace

void fill_byte_pattern(void* p, std::size_t bytes, byte_pattern pattern, cudaStream_t stream) {
  require_aligned(p, "fill_byte_pattern");
  if (bytes == 0) return;
  const std::size_t n_words = bytes / 8;
  auto* base = static_cast<std::uint8_t*>(p);
  fill_byte_pattern_kernel<<<grid_for(n_words), threads, 0, stream>>>(reinterpret_cast<std::uint64_t*>(base), n_words,
                                                                      base + n_words * 8, bytes % 8, pattern);
  CUDABENCH_CHECK_LAUNCH();
}

void count_pattern_mismatches(const void* p, std::size_t bytes, byte_pattern pattern, mismatch_report* report,
                              cudaStream_t stream) {
  require_aligned(p, "count_pattern_mismatches");
  reset_report_kernel<<<1, 1, 0, stream>>>(report);
  CUDABENCH_CHECK_LAUNCH();
  if (bytes == 0) return;
  const std::size_t n_words = bytes / 8;
  const auto* base = static_cast<const std::uint8_t*>(p);
  count_mismatches_kernel<<<grid_for(n_words), threads, 0, stream>>>(
      reinterpret_cast<const std::uint64_t*>(base), n_words, base + n_words * 8, bytes % 8, pattern, report);
  CUDABENCH_CHECK_LAUNCH();
}

}  // namespace cudabench::kernels::memory_bandwidth
