// How the harness times short runs (src/gpu/measure.cpp, docs/design.md "Timing"): a workload
// that allows it and whose run is shorter than graph_timing_below_ms is timed as replays of a
// captured graph, with its one-by-one launch time kept as `launch_ms`; a workload that does not
// allow it, a run that is long enough, or a capture that fails is timed by launching runs one by
// one, as before. Test workloads made of memsets, so the tests need no kernels of their own.
#include <atomic>
#include <cmath>
#include <cstddef>
#include <memory>
#include <string>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "cudabench/device_memory.hpp"
#include "cudabench/gpu/cuda_check.hpp"
#include "cudabench/gpu/runner.hpp"
#include "cudabench/gpu/workload.hpp"
#include "gpu_test_fixture.hpp"

namespace cudabench {
namespace {

#define REQUIRE_GPU() CUDABENCH_REQUIRE_GPU("GPU test skipped")

// `count` memsets of `bytes` per run; `capturable` is what it tells the harness; with
// `sync_in_run` run() also synchronises the stream, which no graph capture allows.
class memset_workload : public workload {
 public:
  memset_workload(std::size_t bytes, int count, bool capturable, bool sync_in_run)
      : bytes_(bytes), count_(count), capturable_(capturable), sync_(sync_in_run) {}
  void setup(run_context&) override { buf_ = device_buffer<std::byte>(bytes_); }
  validation_outcome verify(run_context&) override { return {true, 0.0, 0.0, ""}; }
  void run(cudaStream_t stream) override {
    for (int i = 0; i < count_; ++i) CUDABENCH_CHECK_CUDA(cudaMemsetAsync(buf_.get(), i & 0xff, bytes_, stream));
    if (sync_) CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(stream));
  }
  bool graph_capturable() const override { return capturable_; }
  metric_list metrics(const measurement& m) const override { return {{"time_ms", time_metric(m.per_run_ms)}}; }

 private:
  std::size_t bytes_;
  int count_;
  bool capturable_, sync_;
  device_buffer<std::byte> buf_;
};

workload_result run_memset(std::size_t bytes, int count, bool capturable, bool sync_in_run) {
  workload_spec spec;
  spec.id = "test/memset";
  spec.kind = "test";
  const workload_factory make = [=](const workload_spec&) {
    return std::make_unique<memset_workload>(bytes, count, capturable, sync_in_run);
  };
  runner_options opts;
  opts.settings.repetitions = 3;
  opts.settings.min_time_ms = 5.0;
  opts.settings.warmup_ms = 5.0;
  const std::atomic<bool> stop{false};
  return run_workload(spec, &make, opts, stop);
}

TEST(GraphTiming, ShortCapturableRunsAreReplayedFromAGraph) {
  REQUIRE_GPU();
  // Four 4 KB memsets: ~1 us each on the GPU, less than the host needs to launch one.
  const workload_result r = run_memset(4096, 4, true, false);
  ASSERT_EQ(r.state, status::ok) << r.message;
  const metric* t = r.find_metric("time_ms");
  const metric* launch = r.find_metric("launch_ms");
  ASSERT_NE(t, nullptr);
  ASSERT_NE(launch, nullptr) << "a short capturable run must be graph-timed, with launch_ms kept";
  ASSERT_EQ(t->samples.size(), 3u);
  ASSERT_EQ(launch->samples.size(), 3u);
  EXPECT_EQ(launch->unit, "ms");
  for (double v : t->samples) EXPECT_TRUE(std::isfinite(v) && v > 0) << v;
  // A replayed graph has no host in the loop: per run it is never slower than launching the same
  // work one call at a time (with room for timer noise).
  std::printf("4 x 4 KB memset: graph %.4f ms per run, one-by-one launches %.4f ms per run\n", t->median,
              launch->median);
  EXPECT_LE(t->median, 1.2 * launch->median);
}

TEST(GraphTiming, NonCapturableLongAndFailedCapturesLaunchOneByOne) {
  REQUIRE_GPU();
  // The workload does not allow capture.
  workload_result r = run_memset(4096, 4, false, false);
  ASSERT_EQ(r.state, status::ok) << r.message;
  EXPECT_EQ(r.find_metric("launch_ms"), nullptr);
  // A run of ~2 ms (32 memsets of 256 MiB at ~4.5 TB/s) is long enough for launches to keep the
  // GPU busy.
  r = run_memset(256u << 20, 32, true, false);
  ASSERT_EQ(r.state, status::ok) << r.message;
  ASSERT_NE(r.find_metric("time_ms"), nullptr);
  EXPECT_GT(r.find_metric("time_ms")->median, graph_timing_below_ms);
  EXPECT_EQ(r.find_metric("launch_ms"), nullptr);
  // Claims capture but synchronises inside run(): the capture fails, the workload is still timed.
  r = run_memset(4096, 4, true, true);
  ASSERT_EQ(r.state, status::ok) << r.message;
  ASSERT_NE(r.find_metric("time_ms"), nullptr);
  EXPECT_EQ(r.find_metric("time_ms")->samples.size(), 3u);
  EXPECT_EQ(r.find_metric("launch_ms"), nullptr);
}

}  // namespace
}  // namespace cudabench
