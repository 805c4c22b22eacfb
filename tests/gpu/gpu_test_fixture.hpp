// What every GPU test file shares: the device check that skips (never fails) a test on a machine
// without a CUDA device, and the fixture for tests that run a workload on device 0.
#pragma once
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "cudabench/gpu/workload.hpp"

namespace cudabench::gpu_test {

inline bool have_gpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

// Device 0 set, its properties read and a stream (blocking, as cudaStreamCreate makes) in ctx_.
// The stream is a raw handle created in SetUp, not a cuda_stream member: a member would be created
// before the device check, so a machine without a GPU would fail the test instead of skipping it,
// and a creation failure stays an ASSERT failure.
class gpu_fixture : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device: GPU test skipped";
    ASSERT_EQ(cudaSetDevice(0), cudaSuccess);
    ASSERT_EQ(cudaGetDeviceProperties(&props_, 0), cudaSuccess);
    ASSERT_EQ(cudaStreamCreate(&stream_), cudaSuccess);
    ctx_.stream = stream_;
    ctx_.device = 0;
    ctx_.props = &props_;
  }
  void TearDown() override {
    if (stream_) cudaStreamDestroy(stream_);
  }

  cudaDeviceProp props_{};
  cudaStream_t stream_ = nullptr;
  run_context ctx_;
};

}  // namespace cudabench::gpu_test

// Skips the calling test (returns from it) when there is no CUDA device; `what` (a string
// literal) completes the message "no CUDA device: ...".
#define CUDABENCH_REQUIRE_GPU(what)                                                  \
  do {                                                                               \
    if (!::cudabench::gpu_test::have_gpu()) GTEST_SKIP() << "no CUDA device: " what; \
  } while (0)
