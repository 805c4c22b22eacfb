// GPU tests for the memory_bandwidth workload: every op at 64 MiB passes validation, a corrupted
// destination (a single byte, anywhere) is detected, and the copy kernel handles ragged sizes.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "cudabench/device_memory.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/gpu/registry.hpp"
#include "gpu_test_fixture.hpp"
#include "kernels/memory_bandwidth/byte_pattern.cuh"
#include "kernels/memory_bandwidth/copy_vec16.cuh"
#include "workloads/memory_bandwidth/memory_bandwidth.hpp"
#include "workloads/memory_bandwidth/memory_bandwidth_workload.hpp"

namespace cudabench {
namespace {

class memory_bandwidth_gpu : public gpu_test::gpu_fixture {
 protected:
  static workload_spec spec(const std::string& op, std::int64_t bytes) {
    workload_spec s;
    s.kind = "memory_bandwidth";
    s.params = nlohmann::ordered_json{{"op", op}, {"bytes", bytes}};
    s.id = "memory_bandwidth/op=" + op + "/bytes=" + std::to_string(bytes);
    return s;
  }

  // Flip one byte of the destination at `offset`.
  static void corrupt(memory_bandwidth_workload& w, std::size_t offset) {
    auto* p = static_cast<std::uint8_t*>(w.destination()) + offset;
    if (w.destination_on_device()) {
      std::uint8_t v = 0;
      ASSERT_EQ(cudaMemcpy(&v, p, 1, cudaMemcpyDeviceToHost), cudaSuccess);
      v ^= 0x01;
      ASSERT_EQ(cudaMemcpy(p, &v, 1, cudaMemcpyHostToDevice), cudaSuccess);
    } else {
      *p ^= 0x01;
    }
  }
};

const char* const all_ops[] = {"d2d", "h2d_pinned", "d2h_pinned", "h2d_pageable", "d2h_pageable", "memset"};
constexpr std::int64_t mib64 = 64ll << 20;

TEST_F(memory_bandwidth_gpu, every_op_64mib_passes) {
  for (const char* op : all_ops) {
    auto w = find_kind("memory_bandwidth")->make(spec(op, mib64));
    w->setup(ctx_);
    const validation_outcome v = w->verify(ctx_);
    std::printf("%s: max_rel_error %g\n  %s\n", op, v.max_rel_error, v.message.c_str());
    EXPECT_TRUE(v.passed) << op << ": " << v.message;
    EXPECT_EQ(v.max_rel_error, 0.0);
    // Timing the op is the harness's job; here just check run() enqueues cleanly.
    w->run(stream_);
    ASSERT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
    // Pageable rows add the host's memcpy rate, measured at setup; the others do not.
    measurement m;
    m.per_run_ms = {1.0};
    const metric_list metrics = w->metrics(m);
    const bool pageable = std::string(op).find("pageable") != std::string::npos;
    ASSERT_EQ(metrics.size(), pageable ? 3u : 2u) << op;
    if (pageable) {
      EXPECT_EQ(metrics[2].first, "host_memcpy_gbps");
      EXPECT_GT(metrics[2].second.samples.at(0), 0.1) << op;
    }
    w->teardown();
  }
}

TEST_F(memory_bandwidth_gpu, every_op_ragged_size_passes) {
  // Not a multiple of 8 or 16: the tails of the copy kernel, the fill and the check all run.
  for (const char* op : all_ops) {
    auto w = find_kind("memory_bandwidth")->make(spec(op, (1 << 20) + 13));
    w->setup(ctx_);
    const validation_outcome v = w->verify(ctx_);
    EXPECT_TRUE(v.passed) << op << ": " << v.message;
  }
}

TEST_F(memory_bandwidth_gpu, corrupted_destination_detected) {
  for (const char* op : all_ops) {
    memory_bandwidth_workload w(spec(op, mib64 + 5));
    w.setup(ctx_);
    ASSERT_TRUE(w.verify(ctx_).passed) << op;
    // One byte in the middle, then (after re-verifying) one in the tail.
    corrupt(w, static_cast<std::size_t>(mib64 / 2 + 3));
    validation_outcome v = w.check_destination(ctx_);
    std::printf("%s, middle byte flipped: %s\n", op, v.message.c_str());
    EXPECT_FALSE(v.passed) << op;
    EXPECT_NE(v.message.find("first at byte offset " + std::to_string(mib64 / 2)), std::string::npos) << v.message;
    ASSERT_TRUE(w.verify(ctx_).passed) << op;
    corrupt(w, static_cast<std::size_t>(mib64 + 4));
    v = w.check_destination(ctx_);
    EXPECT_FALSE(v.passed) << op << " (tail)";
  }
}

// The verdict tests' planted slowdown (CUDABENCH_PLANT_MEMSET_REWRITE_PCT) rewrites part of the
// buffer: the output still validates, the message says what was planted, bad values are refused.
TEST_F(memory_bandwidth_gpu, planted_memset_rewrite_still_validates) {
  ::setenv("CUDABENCH_PLANT_MEMSET_REWRITE_PCT", "4", 1);
  auto w = find_kind("memory_bandwidth")->make(spec("memset", mib64 + 3));
  w->setup(ctx_);
  ::unsetenv("CUDABENCH_PLANT_MEMSET_REWRITE_PCT");
  const validation_outcome v = w->verify(ctx_);
  EXPECT_TRUE(v.passed) << v.message;
  EXPECT_NE(v.message.find("again over the first " + std::to_string((mib64 + 3) * 4 / 100) + " bytes"),
            std::string::npos)
      << v.message;
  for (const char* bad : {"0", "-3", "101", "4%", "four"}) {
    ::setenv("CUDABENCH_PLANT_MEMSET_REWRITE_PCT", bad, 1);
    auto b = find_kind("memory_bandwidth")->make(spec("memset", mib64));
    EXPECT_THROW(b->setup(ctx_), input_error) << bad;
    ::unsetenv("CUDABENCH_PLANT_MEMSET_REWRITE_PCT");
  }
}

TEST_F(memory_bandwidth_gpu, copy_kernel_ragged_sizes) {
  // The d2d workload may pick cudaMemcpyAsync at setup, so test copy_vec16 on its own, with the
  // full grid and with a 3-block grid that must stride many times.
  const int resident = kernels::memory_bandwidth::copy_vec16_resident_blocks(0);
  ASSERT_GE(resident, props_.multiProcessorCount);
  for (int blocks : {resident, 3})
    for (std::size_t bytes : {std::size_t{1}, std::size_t{15}, std::size_t{16}, std::size_t{4097},
                              std::size_t{(3u << 20) + 7}, std::size_t{(48u << 20) + 24}}) {
      device_buffer<std::byte> src(bytes), dst(bytes);
      device_buffer<kernels::memory_bandwidth::mismatch_report> report(1);
      kernels::memory_bandwidth::byte_pattern pattern;
      pattern.seed = 1234 + bytes;
      kernels::memory_bandwidth::fill_byte_pattern(src.get(), bytes, pattern, stream_);
      ASSERT_EQ(cudaMemsetAsync(dst.get(), 0x5A, bytes, stream_), cudaSuccess);
      kernels::memory_bandwidth::copy_vec16(dst.get(), src.get(), bytes, blocks, stream_);
      kernels::memory_bandwidth::count_pattern_mismatches(dst.get(), bytes, pattern, report.get(), stream_);
      kernels::memory_bandwidth::mismatch_report r;
      ASSERT_EQ(cudaMemcpyAsync(&r, report.get(), sizeof(r), cudaMemcpyDeviceToHost, stream_), cudaSuccess);
      ASSERT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
      EXPECT_EQ(r.mismatched_words, 0u) << bytes << " bytes, first bad offset " << r.first_offset;
    }
}

TEST_F(memory_bandwidth_gpu, pattern_matches_host_definition) {
  // The device fill writes byte i = byte (i % 8) of splitmix64(seed + i / 8); spot-check on the host.
  const std::size_t bytes = 4096 + 3;
  device_buffer<std::byte> buf(bytes);
  kernels::memory_bandwidth::byte_pattern pattern;
  pattern.seed = 42;
  kernels::memory_bandwidth::fill_byte_pattern(buf.get(), bytes, pattern, stream_);
  std::string host(bytes, '\0');
  ASSERT_EQ(cudaMemcpyAsync(host.data(), buf.get(), bytes, cudaMemcpyDeviceToHost, stream_), cudaSuccess);
  ASSERT_EQ(cudaStreamSynchronize(stream_), cudaSuccess);
  for (std::size_t i : {std::size_t{0}, std::size_t{7}, std::size_t{8}, std::size_t{1001}, bytes - 1}) {
    const auto expected = static_cast<std::uint8_t>(kernels::splitmix64(42 + i / 8) >> (8 * (i % 8)));
    EXPECT_EQ(static_cast<std::uint8_t>(host[i]), expected) << "byte " << i;
  }
}

// Host-only (no GPU touched): the metric names, order and byte counting.
TEST(memory_bandwidth_metrics, d2d_counts_read_and_write) {
  measurement m;
  m.per_run_ms = {1.0};
  auto spec = [](const char* op) {
    workload_spec s;
    s.kind = "memory_bandwidth";
    s.id = std::string("memory_bandwidth/op=") + op + "/bytes=1000000000";
    s.params = nlohmann::ordered_json{{"op", op}, {"bytes", 1000000000}};
    return s;
  };
  memory_bandwidth_workload d2d(spec("d2d"));
  memory_bandwidth_workload h2d(spec("h2d_pinned"));
  const metric_list a = d2d.metrics(m), b = h2d.metrics(m);
  ASSERT_EQ(a[0].first, "gbps");
  EXPECT_EQ(a[0].second.unit, "GB/s");
  EXPECT_DOUBLE_EQ(a[0].second.samples[0], 2000.0);  // 2 GB moved in 1 ms
  EXPECT_DOUBLE_EQ(b[0].second.samples[0], 1000.0);
  EXPECT_EQ(a[1].first, "time_ms");
}

}  // namespace
}  // namespace cudabench
