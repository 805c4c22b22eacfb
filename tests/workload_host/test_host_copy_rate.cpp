// The host memcpy rate that pageable memory_bandwidth rows report (host_copy_rate.hpp): plain C++
// inside a GPU workload's folder, so it is compiled straight into this CPU test.
#include <cmath>
#include <cstddef>
#include <stdexcept>
#include <vector>

#include <gtest/gtest.h>

#include "workloads/memory_bandwidth/host_copy_rate.hpp"

namespace cudabench {
namespace {

TEST(HostCopyRate, CopiesAndReportsAFiniteRate) {
  std::vector<std::byte> src(8 << 20);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<std::byte>(i * 131 + 7);
  const host_copy_rate r = measure_host_copy(src.data(), src.size(), 3);
  EXPECT_TRUE(r.copied);
  EXPECT_TRUE(std::isfinite(r.gbps));
  // 8 MiB copied faster than 0.01 GB/s (0.8 s) and slower than 100 TB/s: a rate, not a unit slip.
  EXPECT_GT(r.gbps, 0.01);
  EXPECT_LT(r.gbps, 1e5);
}

TEST(HostCopyRate, RefusesAnEmptyCopyOrNoTrials) {
  std::vector<std::byte> src(64);
  EXPECT_THROW(measure_host_copy(src.data(), 0, 1), std::invalid_argument);
  EXPECT_THROW(measure_host_copy(src.data(), src.size(), 0), std::invalid_argument);
}

}  // namespace
}  // namespace cudabench
