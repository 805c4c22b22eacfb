// The setup-time tuners' contest (include/cudabench/gpu/tuner_timer.hpp, time_candidates): each
// candidate's call is timed as GPU time, a candidate that cannot run is skipped (infinity) and
// never enqueued, and candidates doing more work time longer in proportion. The candidates are
// memsets, so the test needs no kernels of its own. count_candidates also counts each candidate's
// SM cycles with the harness's clock probe, and those are its time at the clock it ran at.
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <vector>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "cudabench/device_memory.hpp"
#include "cudabench/gpu/cuda_check.hpp"
#include "cudabench/gpu/sm_clock_probe.hpp"
#include "cudabench/gpu/tuner_timer.hpp"
#include "cudabench/pick_fastest.hpp"
#include "gpu_test_fixture.hpp"

namespace cudabench {
namespace {

#define REQUIRE_GPU() CUDABENCH_REQUIRE_GPU("GPU test skipped")

TEST(TunerTimer, CandidatesAreTimedByTheirWorkAndOnesThatCannotRunAreSkipped) {
  REQUIRE_GPU();
  constexpr std::size_t kBytes = std::size_t{64} << 20;  // ~20 us a memset: far above launch costs
  device_buffer<std::byte> buf(kBytes);
  cudaStream_t stream = nullptr;
  CUDABENCH_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  // Candidate i writes the buffer i + 1 times; candidate 1 "cannot run here".
  std::vector<int> enqueued(4, 0);
  const std::vector<double> ms = time_candidates(
      stream, 4, 3, 2.0,
      [&](std::size_t i) {
        ++enqueued[i];
        for (std::size_t r = 0; r <= i; ++r)
          CUDABENCH_CHECK_CUDA(cudaMemsetAsync(buf.get(), static_cast<int>(r), kBytes, stream));
      },
      [](std::size_t i) { return i != 1; });
  CUDABENCH_CHECK_CUDA(cudaStreamDestroy(stream));
  std::printf("time_candidates: %.4f / %.4f / %.4f / %.4f ms per call\n", ms[0], ms[1], ms[2], ms[3]);

  EXPECT_TRUE(std::isinf(ms[1]));
  EXPECT_EQ(enqueued[1], 0);
  EXPECT_GT(enqueued[0], 0);
  // Three and four writes against one: the ratios of GPU time, within what clocks and the
  // first write's cache effects move.
  EXPECT_NEAR(ms[2] / ms[0], 3.0, 0.6);
  EXPECT_NEAR(ms[3] / ms[0], 4.0, 0.8);
  EXPECT_EQ(pick_fastest(ms), 0u);
}

TEST(TunerTimer, CountedCandidatesCarryTheirCyclesAtTheClockTheyRanAt) {
  REQUIRE_GPU();
  constexpr std::size_t kBytes = std::size_t{64} << 20;
  device_buffer<std::byte> buf(kBytes);
  cudaStream_t stream = nullptr;
  CUDABENCH_CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  int device = 0;
  CUDABENCH_CHECK_CUDA(cudaGetDevice(&device));
  sm_clock_probe probe(device);
  auto enqueue = [&](std::size_t i) {
    for (std::size_t r = 0; r <= 2 * i; ++r)  // one write, three writes
      CUDABENCH_CHECK_CUDA(cudaMemsetAsync(buf.get(), static_cast<int>(r), kBytes, stream));
  };
  const contest_costs counted =
      count_candidates(stream, 3, 3, 2.0, &probe, enqueue, [](std::size_t i) { return i != 2; });
  const contest_costs timed = count_candidates(stream, 2, 1, 2.0, nullptr, enqueue);
  CUDABENCH_CHECK_CUDA(cudaStreamDestroy(stream));
  ASSERT_EQ(counted.kcycles.size(), 3u);
  std::printf("count_candidates: %.4f ms %.1f kcycles / %.4f ms %.1f kcycles\n", counted.ms[0], counted.kcycles[0],
              counted.ms[1], counted.kcycles[1]);

  EXPECT_TRUE(ranks_by_cycles(counted));
  EXPECT_TRUE(std::isinf(counted.ms[2]));
  EXPECT_TRUE(std::isnan(counted.kcycles[2]));  // never ran, never counted
  for (std::size_t i = 0; i < 2; ++i) {
    // kcycles / ms is the SMs' clock in MHz over the replays: a real SM clock, whatever the card.
    const double mhz = counted.kcycles[i] / counted.ms[i];
    EXPECT_GT(mhz, 300.0) << i;
    EXPECT_LT(mhz, 3000.0) << i;
  }
  // Three writes against one cost about three times the cycles, as they take three times the time.
  EXPECT_NEAR(counted.kcycles[1] / counted.kcycles[0], 3.0, 0.6);
  EXPECT_EQ(pick_cheapest(counted), 0u);
  // Without a probe there is no count, and the contest is by time.
  EXPECT_TRUE(timed.kcycles.empty());
  EXPECT_FALSE(ranks_by_cycles(timed));
  EXPECT_EQ(pick_cheapest(timed), 0u);
}

}  // namespace
}  // namespace cudabench
