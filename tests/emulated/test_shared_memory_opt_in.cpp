// kernels/common/shared_memory.cuh on the fake runtime: a kernel is opted in to more dynamic shared
// memory when its static and dynamic shared memory together pass the 48 KiB default, not when the
// dynamic part alone does. The GPU rejected GEMV variant 6 with the RMSNorm prologue (48 KiB
// dynamic + 128 bytes static) while the rule looked at the dynamic part alone.
#include <gtest/gtest.h>

#include "fake_cuda_runtime.hpp"
#include "kernel_emu.hpp"  // the kernel-pointer overloads nvcc's runtime header would give
#include "kernels/common/shared_memory.cuh"

namespace {

void probe_kernel(int) {}

int opt_in(std::size_t static_bytes, std::size_t dynamic_bytes) {
  fake_cuda::static_shared_bytes = static_bytes;
  fake_cuda::opted_in_dynamic_shared_bytes = -1;
  cudabench::kernels::opt_in_shared_memory(probe_kernel, dynamic_bytes);
  fake_cuda::static_shared_bytes = 0;
  return fake_cuda::opted_in_dynamic_shared_bytes;
}

}  // namespace

TEST(SharedMemoryOptIn, StaticAndDynamicTogetherDecide) {
  constexpr std::size_t kib48 = 48 * 1024;
  // No static shared memory: 48 KiB of dynamic fits the default, one byte more needs the opt-in.
  EXPECT_EQ(opt_in(0, kib48), -1);
  EXPECT_EQ(opt_in(0, kib48 + 16), static_cast<int>(kib48 + 16));
  // 128 bytes of static scratch (the GEMV's block reduction): the default then holds 48 KiB - 128.
  EXPECT_EQ(opt_in(128, kib48 - 128), -1);
  EXPECT_EQ(opt_in(128, kib48), static_cast<int>(kib48));  // GEMV variant 6 + RMSNorm at k = 4096
  // Small launches never ask.
  EXPECT_EQ(opt_in(4096, 8192), -1);
}
