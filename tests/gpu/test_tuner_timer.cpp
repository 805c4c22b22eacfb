// The setup-time tuners' contest (include/cudabench/gpu/tuner_timer.hpp, time_candidates): each
// candidate's call is timed as GPU time, a candidate that cannot run is skipped (infinity) and
// never enqueued, and candidates doing more work time longer in proportion. The candidates are
// memsets, so the test needs no kernels of its own.
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <vector>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "cudabench/device_memory.hpp"
#include "cudabench/gpu/cuda_check.hpp"
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

}  // namespace
}  // namespace cudabench
