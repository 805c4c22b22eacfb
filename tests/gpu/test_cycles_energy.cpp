// The harness's `cycles` and `energy_j` metrics on the GPU (src/gpu/measure.cpp, energy_metrics.hpp):
// a matmul and a device-to-device copy run through run_workload with repetitions long enough for
// NVML's energy counter (energy_min_window_ms). Where NVML is available energy must be present,
// positive and physically plausible, cycles must be each repetition's time x its SM clock, and the
// matmul's tflops_per_w must be its FLOPs over that energy. Without NVML both are absent.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <string>

#include <cuda_runtime.h>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cudabench/energy_metrics.hpp"
#include "cudabench/gpu/registry.hpp"
#include "cudabench/gpu/runner.hpp"
#include "cudabench/nvml.hpp"
#include "gpu_test_fixture.hpp"

namespace cudabench {
namespace {

#define REQUIRE_GPU() CUDABENCH_REQUIRE_GPU("GPU test skipped")

bool nvml_here() {
  char bus[32] = {};
  if (cudaDeviceGetPCIBusId(bus, sizeof(bus), 0) != cudaSuccess) return false;
  return nvml_device(bus).available();
}

workload_result run(const std::string& kind, const nlohmann::ordered_json& params, const std::string& id) {
  workload_spec spec;
  spec.kind = kind;
  spec.params = params;
  spec.id = id;
  runner_options opts;
  opts.settings.repetitions = 3;
  opts.settings.warmup = 1;
  opts.settings.warmup_ms = 100;
  opts.settings.min_time_ms = energy_min_window_ms * 1.2;  // every repetition long enough for energy
  const std::atomic<bool> stop{false};
  return run_workload(spec, find_factory(kind), opts, stop);
}

// Energy per run, average power over the runs, and cycles = time x that repetition's clock. Without
// NVML: both absent (not zero), and nothing more to check.
void check(const workload_result& r, const char* what) {
  ASSERT_EQ(r.state, status::ok) << r.message;
  const metric* per_run = r.find_metric("time_ms");
  const metric* e = r.find_metric("energy_j");
  const metric* cy = r.find_metric("cycles");
  ASSERT_NE(per_run, nullptr);
  if (!nvml_here()) {
    EXPECT_EQ(e, nullptr) << "no NVML: energy must be absent, not zero";
    EXPECT_EQ(cy, nullptr);
    return;
  }
  ASSERT_NE(cy, nullptr);
  ASSERT_EQ(r.clocks.sm_mhz.size(), 3u);
  ASSERT_EQ(cy->samples.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i)
    EXPECT_NEAR(cy->samples[i], per_run->samples[i] * r.clocks.sm_mhz[i] / 1e3, 1e-9 * cy->samples[i]);
  ASSERT_NE(e, nullptr) << "energy absent: " << r.clocks.energy_absent;
  EXPECT_EQ(r.clocks.energy_absent, "");
  ASSERT_EQ(e->samples.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_GT(e->samples[i], 0);
    const double watts = e->samples[i] / (per_run->samples[i] * 1e-3);
    std::printf("%s rep %zu: %.4f ms/run, %.0f MHz, %.3f Mcycles, %.4f J/run, %.0f W\n", what, i, per_run->samples[i],
                r.clocks.sm_mhz[i], cy->samples[i], e->samples[i], watts);
    EXPECT_GT(watts, 50.0) << "average power over the repetition";
    EXPECT_LT(watts, 1000.0) << "average power over the repetition";
  }
}

// Host-only (no GPU touched): the kinds' energy-derived metrics from a measurement with energy.
TEST(CyclesEnergy, DerivedMetricsFromTheMeasuredEnergy) {
  measurement m;
  m.per_run_ms = {1.0, 2.0};
  m.energy_j_per_run = {0.5, 0.6};
  workload_spec mm;
  mm.kind = "matmul";
  mm.params = {{"dtype", "fp16"}, {"m", 1000}, {"n", 2000}, {"k", 500}, {"batch", 3}};
  mm.id = "matmul/dtype=fp16/m=1000/n=2000/k=500/batch=3";
  const metric_list ms = (*find_factory("matmul"))(mm)->metrics(m);
  ASSERT_EQ(ms.size(), 3u);
  EXPECT_EQ(ms[2].first, "tflops_per_w");
  EXPECT_EQ(ms[2].second.unit, "TFLOP/s/W");
  EXPECT_EQ(ms[2].second.direction, better::higher);
  // 2 * 1000 * 2000 * 500 * 3 = 6e9 FLOP = 0.006 TFLOP per run: 0.012 TFLOP/J at 0.5 J, 0.01 at 0.6 J.
  EXPECT_DOUBLE_EQ(ms[2].second.samples[0], 0.012);
  EXPECT_DOUBLE_EQ(ms[2].second.samples[1], 0.01);

  workload_spec llm;
  llm.kind = "llm_decode";
  llm.params = {{"model", "llama-tiny"}, {"weights", "random"}, {"dtype", "fp16"},
                {"prompt_tokens", 16},   {"max_length", 40},    {"batch", 1}};
  llm.id = "llm_decode/model=llama-tiny/weights=random/dtype=fp16/prompt_tokens=16/max_length=40/batch=1";
  const metric_list ls = (*find_factory("llm_decode"))(llm)->metrics(m);
  const auto j = std::find_if(ls.begin(), ls.end(), [](const auto& x) { return x.first == "j_per_token"; });
  ASSERT_NE(j, ls.end());
  EXPECT_EQ(j->second.unit, "J/token");
  EXPECT_EQ(j->second.direction, better::lower);
  // 16 -> 40: 24 generated tokens (the first from prefill), 0.5 J per generate.
  EXPECT_DOUBLE_EQ(j->second.samples[0], 0.5 / 24);
  // Without energy neither is there.
  measurement none;
  none.per_run_ms = {1.0};
  EXPECT_EQ((*find_factory("matmul"))(mm)->metrics(none).size(), 2u);
}

TEST(CyclesEnergy, MatmulHasCyclesEnergyAndTflopsPerWatt) {
  REQUIRE_GPU();
  const auto r = run("matmul", {{"dtype", "fp16"}, {"m", 4096}, {"n", 4096}, {"k", 4096}},
                     "matmul/dtype=fp16/m=4096/n=4096/k=4096");
  check(r, "matmul fp16 4096^3");
  if (HasFatalFailure() || !nvml_here()) return;
  const metric* e = r.find_metric("energy_j");
  const metric* eff = r.find_metric("tflops_per_w");
  ASSERT_NE(eff, nullptr);
  EXPECT_EQ(eff->direction, better::higher);
  const double tflop = 2.0 * 4096.0 * 4096.0 * 4096.0 / 1e12;
  for (std::size_t i = 0; i < 3; ++i) EXPECT_NEAR(eff->samples[i], tflop / e->samples[i], 1e-9 * eff->samples[i]);
}

TEST(CyclesEnergy, CopyHasCyclesAndEnergy) {
  REQUIRE_GPU();
  const auto r =
      run("memory_bandwidth", {{"op", "d2d"}, {"bytes", 1 << 30}}, "memory_bandwidth/op=d2d/bytes=1073741824");
  check(r, "d2d 1 GiB");
  EXPECT_EQ(r.find_metric("tflops_per_w"), nullptr);  // only matmul knows its FLOPs
}

TEST(CyclesEnergy, DefaultShortRepetitionsSayWhyEnergyIsAbsent) {
  REQUIRE_GPU();
  if (!nvml_here()) GTEST_SKIP() << "NVML unavailable";
  workload_spec spec;
  spec.kind = "memory_bandwidth";
  spec.params = {{"op", "d2d"}, {"bytes", 64 << 20}};
  spec.id = "memory_bandwidth/op=d2d/bytes=67108864";
  runner_options opts;
  opts.settings.repetitions = 3;
  opts.settings.min_time_ms = 25;  // the suites' default
  const std::atomic<bool> stop{false};
  const auto r = run_workload(spec, find_factory("memory_bandwidth"), opts, stop);
  ASSERT_EQ(r.state, status::ok) << r.message;
  EXPECT_EQ(r.find_metric("energy_j"), nullptr);
  EXPECT_NE(r.clocks.energy_absent.find(fmt::format("shorter than the {:.0f} ms", energy_min_window_ms)),
            std::string::npos)
      << r.clocks.energy_absent;
  EXPECT_NE(r.find_metric("cycles"), nullptr);
}

}  // namespace
}  // namespace cudabench

namespace cudabench {
namespace {

// sm_cycles: the SMs' own cycle counters over each repetition (sm_clock_stamps.hpp). An fp32 SIMT
// GEMM runs below the power cap, so its clock holds and NVML's point sample after the repetition is
// the clock it ran at: the counted clock must agree with it. Printed beside it for every
// repetition, with a tensor-core GEMM at the cap, where the two can part.
TEST(CyclesEnergy, SmCyclesCountTheClockTheRepetitionRanAt) {
  REQUIRE_GPU();
  for (const char* dtype : {"fp32", "fp16"}) {
    workload_spec spec;
    spec.kind = "matmul";
    spec.params = {{"dtype", dtype}, {"m", 8192}, {"n", 8192}, {"k", 8192}};
    spec.id = fmt::format("matmul/dtype={}/m=8192/n=8192/k=8192", dtype);
    runner_options opts;
    opts.settings.repetitions = 5;
    opts.settings.warmup = 1;
    opts.settings.warmup_ms = 200;
    opts.settings.min_time_ms = 25;
    const std::atomic<bool> stop{false};
    const workload_result r = run_workload(spec, find_factory("matmul"), opts, stop);
    ASSERT_EQ(r.state, status::ok) << r.message;
    const metric* t = r.find_metric("time_ms");
    const metric* sc = r.find_metric("sm_cycles");
    ASSERT_NE(sc, nullptr) << "the stamps paired no SM";
    EXPECT_EQ(sc->unit, "Mcycles");
    ASSERT_EQ(sc->samples.size(), 5u);
    for (std::size_t i = 0; i < 5; ++i) {
      const double counted_mhz = sc->samples[i] / t->samples[i] * 1e3;
      const double nvml_mhz = r.clocks.sm_mhz.size() == 5 ? r.clocks.sm_mhz[i] : 0.0;
      std::printf("%s 8192^3 rep %zu: %.4f ms/run, counted %.0f MHz, NVML after %.0f MHz\n", dtype, i, t->samples[i],
                  counted_mhz, nvml_mhz);
      EXPECT_GT(counted_mhz, 200.0);
      EXPECT_LT(counted_mhz, 3500.0);
      if (std::string(dtype) == "fp32" && nvml_mhz > 0 && !r.clocks.throttled)
        EXPECT_NEAR(counted_mhz, nvml_mhz, 0.03 * nvml_mhz) << "an unthrottled clock, counted and sampled";
    }
  }
}

}  // namespace
}  // namespace cudabench
