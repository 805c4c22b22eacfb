// See device_memory.hpp. A single process-wide tracker: cudabench runs one workload at a time.
#include "cudabench/device_memory.hpp"

#include <algorithm>
#include <atomic>

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "cudabench/gpu/cuda_check.hpp"

namespace cudabench {
namespace {
std::atomic<std::uint64_t> g_limit{0}, g_current{0}, g_peak{0};
std::atomic<const char*> g_limit_source{"--mem-limit"};  // a string literal: never freed

std::string gib(std::uint64_t b) { return fmt::format("{:.2f} GiB", b / 1073741824.0); }
}  // namespace

void memory_tracker::set_limit(std::uint64_t bytes, const char* source) {
  g_limit_source = source;
  g_limit = bytes;
}
std::uint64_t memory_tracker::limit() { return g_limit; }
std::uint64_t memory_tracker::current() { return g_current; }
std::uint64_t memory_tracker::peak() { return g_peak; }
void memory_tracker::reset_peak() { g_peak = g_current.load(); }

void* device_allocate(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  const std::uint64_t limit = g_limit;
  if (limit != 0 && g_current + bytes > limit)
    throw oom_error(fmt::format("allocation of {} would exceed {} {} ({} in use)", gib(bytes), g_limit_source.load(),
                                gib(limit), gib(g_current)),
                    bytes);
  void* p = nullptr;
  const cudaError_t err = cudaMalloc(&p, bytes);
  if (err == cudaErrorMemoryAllocation) {
    (void)cudaGetLastError();
    throw oom_error(fmt::format("cudaMalloc of {} failed: out of device memory ({} in use by cudabench)", gib(bytes),
                                gib(g_current)),
                    bytes);
  }
  if (err != cudaSuccess) throw_cuda_error(err, "cudaMalloc", __FILE__, __LINE__);
  const std::uint64_t now = (g_current += bytes);
  std::uint64_t prev = g_peak;
  while (now > prev && !g_peak.compare_exchange_weak(prev, now)) {
  }
  return p;
}

void device_free(void* p, std::size_t bytes) noexcept {
  if (!p) return;
  cudaFree(p);
  g_current -= std::min<std::uint64_t>(bytes, g_current);
}

}  // namespace cudabench
