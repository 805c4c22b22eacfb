// The kernel emulator runs CUDA's execution model faithfully enough for the kernels it is given:
// coordinates, shared memory (static and dynamic) and barriers, warp shuffles, early exits, atomics (the probe kernels
// in emu_probe_kernels.cu against host arithmetic).
#include <cstdlib>
#include <numeric>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "emu_probe_kernels.cuh"

namespace cudabench {
namespace {

TEST(KernelEmulator, CoordinatesInThreeDimensions) {
  const dim3 grid(3, 2, 2), block(4, 3, 2);
  const int threads = 24, blocks = 12;
  std::vector<int> out(static_cast<std::size_t>(threads * blocks), -1);
  emu_probe::coordinates(out.data(), grid, block);
  for (int bz = 0; bz < 2; ++bz)
    for (int by = 0; by < 2; ++by)
      for (int bx = 0; bx < 3; ++bx)
        for (int tz = 0; tz < 2; ++tz)
          for (int ty = 0; ty < 3; ++ty)
            for (int tx = 0; tx < 4; ++tx) {
              const int bid = bx + 3 * (by + 2 * bz), tid = tx + 4 * (ty + 3 * tz);
              EXPECT_EQ(out[static_cast<std::size_t>(bid * threads + tid)],
                        ((bz * 16 + by) * 16 + bx) * 4096 + (tz * 16 + ty) * 16 + tx);
            }
}

TEST(KernelEmulator, SharedMemoryAndBarriers) {
  const int blocks = 3;
  std::vector<float> in(256 * blocks), out(in.size());
  std::iota(in.begin(), in.end(), 0.f);
  emu_probe::reverse(in.data(), out.data(), blocks);
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < 256; ++t) EXPECT_EQ(out[b * 256 + t], in[b * 256 + 255 - t]) << b << " " << t;
}

TEST(KernelEmulator, DynamicSharedMemoryIsTheLaunchsSize) {
  const int blocks = 3, n = 5000;  // 20 KB per block, more than one thread's share
  std::vector<float> in(static_cast<std::size_t>(n) * blocks), out(in.size());
  std::iota(in.begin(), in.end(), 0.f);
  emu_probe::dynamic_reverse(in.data(), out.data(), n, blocks);
  for (int b = 0; b < blocks; ++b)
    for (int t = 0; t < n; ++t) ASSERT_EQ(out[b * n + t], in[b * n + n - 1 - t]) << b << " " << t;
}

TEST(KernelEmulator, WarpReductionsOfTheSharedHeader) {
  const int blocks = 2, n = 96 * blocks;
  std::vector<float> in(n), sums(n / 32), maxima(n / 32);
  for (int i = 0; i < n; ++i) in[i] = static_cast<float>((i * 37) % 101) - 50.f;
  emu_probe::warp_sums(in.data(), sums.data(), maxima.data(), blocks);
  for (int w = 0; w < n / 32; ++w) {
    float s = 0.f, m = -1e30f;
    for (int l = 0; l < 32; ++l) s += in[w * 32 + l], m = std::max(m, in[w * 32 + l]);
    EXPECT_EQ(sums[w], s) << w;  // small integers: exact in any order
    EXPECT_EQ(maxima[w], m) << w;
  }
}

TEST(KernelEmulator, ThreadsThatReturnEarlyLeaveTheBarrier) {
  const int n = 300;  // blocks of 128: the third has 44 live threads
  std::vector<float> in(n), out(3, -1.f);
  std::iota(in.begin(), in.end(), 1.f);
  emu_probe::ragged_block_sum(in.data(), n, out.data());
  EXPECT_EQ(out[0], 128.f * 129.f / 2.f);
  EXPECT_EQ(out[1], (256.f * 257.f - 128.f * 129.f) / 2.f);
  EXPECT_EQ(out[2], (300.f * 301.f - 256.f * 257.f) / 2.f);
}

TEST(KernelEmulator, AtomicAddCountsEveryThread) {
  float total = 0.f;
  emu_probe::atomic_count(&total, 5, 200);
  EXPECT_EQ(total, 1000.f);
}

// The reason ctest runs every emulated test in both orders: a read of another thread's shared
// write without a barrier gets the wrong value in (at least) one of them. Ascending, every thread
// but the last reads its neighbour's slot before the neighbour has run; descending, each reads a
// value already written but thread 63, which reads slot 0 before thread 0 has run.
TEST(KernelEmulator, AMissingBarrierIsWrongInOneOrder) {
  std::vector<int> in(64), out(64, -1);
  std::iota(in.begin(), in.end(), 1000);
  emu_probe::missing_barrier(in.data(), out.data());
  int right = 0;
  for (int t = 0; t < 64; ++t) right += out[t] == in[(t + 1) % 64];
  const char* order = std::getenv("CUDA_EMU_ORDER");
  EXPECT_EQ(right, order && std::string(order) == "reverse" ? 63 : 1);
}

}  // namespace
}  // namespace cudabench
