// See host_copy_rate.hpp.
#include "workloads/memory_bandwidth/host_copy_rate.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <vector>

namespace cudabench {

host_copy_rate measure_host_copy(const std::byte* src, std::size_t bytes, int trials) {
  if (bytes == 0) throw std::invalid_argument("measure_host_copy: bytes must be > 0");
  if (trials < 1) throw std::invalid_argument("measure_host_copy: trials must be >= 1");
  std::vector<std::byte> dst(bytes, std::byte{0});  // zero-filled: every page touched
  double best = std::numeric_limits<double>::infinity();
  for (int t = 0; t < trials; ++t) {
    const auto start = std::chrono::steady_clock::now();
    std::memcpy(dst.data(), src, bytes);
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    best = std::min(best, took.count());
  }
  host_copy_rate r;
  r.gbps = best > 0 ? static_cast<double>(bytes) / best / 1e9 : 0;
  r.copied = std::memcmp(dst.data(), src, bytes) == 0;
  return r;
}

}  // namespace cudabench
