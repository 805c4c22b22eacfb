// cycle_and_energy_metrics and the energy-derived metrics (energy_metrics.hpp), from synthetic
// readings: what the harness builds from NVML's clock and energy counter around each repetition.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudabench/energy_metrics.hpp"

using namespace cudabench;

namespace {

// A repetition of `runs` runs of `ms` each, the clock at `mhz`, the energy counter advanced by `mj`.
repetition_reading rep(double ms, long runs, double mhz, std::uint64_t mj) {
  repetition_reading r;
  r.per_run_ms = ms;
  r.runs = runs;
  r.sm_mhz = mhz;
  r.energy_mj = mj;
  r.energy_counter_read = true;
  return r;
}

bool says(const std::string& why, const std::string& what) { return why.find(what) != std::string::npos; }

}  // namespace

TEST(EnergyMetrics, CyclesAreTimeTimesThatRepetitionsClock) {
  // 2 ms at 1500 MHz = 3e6 cycles; 2.2 ms at 1425 MHz = 3.135e6: each sample pairs a repetition's
  // time with its own clock.
  const auto m = cycle_and_energy_metrics({rep(2.0, 500, 1500, 700000), rep(2.2, 455, 1425, 690000)}, true, false);
  ASSERT_TRUE(m.cycles);
  EXPECT_EQ(m.cycles->unit, "Mcycles");
  EXPECT_EQ(m.cycles->direction, better::lower);
  ASSERT_EQ(m.cycles->samples.size(), 2u);
  EXPECT_DOUBLE_EQ(m.cycles->samples[0], 3.0);
  EXPECT_DOUBLE_EQ(m.cycles->samples[1], 3.135);
}

TEST(EnergyMetrics, EnergyIsTheCounterAdvanceOverTheRunsOfThatRepetition) {
  // 1000 ms windows: 700000 mJ over 500 runs = 1.4 J per run (700 W); 690000 mJ over 455 runs.
  const auto m = cycle_and_energy_metrics({rep(2.0, 500, 1500, 700000), rep(2.2, 455, 1425, 690000)}, true, false);
  ASSERT_TRUE(m.energy_j);
  EXPECT_EQ(m.energy_absent, "");
  EXPECT_EQ(m.energy_j->unit, "J");
  EXPECT_EQ(m.energy_j->direction, better::lower);
  ASSERT_EQ(m.energy_j->samples.size(), 2u);
  EXPECT_DOUBLE_EQ(m.energy_j->samples[0], 1.4);
  EXPECT_DOUBLE_EQ(m.energy_j->samples[1], 690.0 / 455.0);
  EXPECT_EQ(m.energy_per_run, m.energy_j->samples);
}

TEST(EnergyMetrics, ACounterThatDidNotAdvanceGivesNoEnergyAndSaysWhere) {
  const auto m = cycle_and_energy_metrics(
      {rep(2.0, 500, 1500, 700000), rep(2.0, 500, 1500, 0), rep(2.0, 500, 1500, 700000)}, true, false);
  EXPECT_FALSE(m.energy_j);
  EXPECT_TRUE(m.energy_per_run.empty());
  EXPECT_EQ(m.energy_absent, "the energy counter did not advance in repetition 1");
  EXPECT_TRUE(m.cycles);  // the clock was read: cycles stand on their own
}

TEST(EnergyMetrics, RepetitionsShorterThanTheCountersResolutionGiveNoEnergy) {
  // The default 25 ms repetition: the counter advances every 20-100 ms, so a delta over it could be
  // off by 100% or more. Absent, with the way to get it.
  const auto m = cycle_and_energy_metrics({rep(0.25, 100, 1980, 17000), rep(0.25, 100, 1980, 0)}, true, false);
  EXPECT_FALSE(m.energy_j);
  EXPECT_EQ(m.energy_absent,
            "repetition 0 lasted 25 ms, shorter than the 800 ms an energy sample needs (the counter advances about "
            "every 100 ms); --min-time-ms 1000 records energy");
  ASSERT_TRUE(m.cycles);
  EXPECT_DOUBLE_EQ(m.cycles->samples[0], 0.495);
  // Exactly the minimum is enough.
  EXPECT_TRUE(cycle_and_energy_metrics({rep(10.0, 100, 1500, 700000)}, true, false).energy_j);
}

TEST(EnergyMetrics, NoCounterACounterGoingBackAndColdL2EachSayWhy) {
  repetition_reading unread = rep(2.0, 500, 1500, 0);
  unread.energy_counter_read = false;
  unread.energy_mj.reset();
  EXPECT_TRUE(says(cycle_and_energy_metrics({unread}, true, false).energy_absent,
                   "NVML reports no total energy for this GPU or driver"));

  repetition_reading back = rep(2.0, 500, 1500, 0);
  back.energy_mj.reset();
  back.energy_counter_went_back = true;
  EXPECT_EQ(cycle_and_energy_metrics({rep(2.0, 500, 1500, 700000), back}, true, false).energy_absent,
            "the energy counter went backwards in repetition 1 (driver reloaded?)");

  const auto cold = cycle_and_energy_metrics({rep(2.0, 500, 1500, 900000)}, true, true);
  EXPECT_FALSE(cold.energy_j);
  EXPECT_TRUE(says(cold.energy_absent, "cold L2"));
  EXPECT_TRUE(cold.cycles);
}

TEST(EnergyMetrics, WithoutNvmlNothingIsEmittedNotZero) {
  const auto m = cycle_and_energy_metrics({rep(2.0, 500, 1500, 700000)}, false, false);
  EXPECT_FALSE(m.cycles);
  EXPECT_FALSE(m.energy_j);
  EXPECT_EQ(m.energy_absent, "");  // the environment says once why NVML is missing
  EXPECT_FALSE(cycle_and_energy_metrics({}, true, false).cycles);
}

TEST(EnergyMetrics, CyclesNeedAClockForEveryRepetition) {
  repetition_reading no_clock = rep(2.0, 500, 1500, 700000);
  no_clock.sm_mhz.reset();
  const auto m = cycle_and_energy_metrics({rep(2.0, 500, 1500, 700000), no_clock}, true, false);
  EXPECT_FALSE(m.cycles);   // a sample would pair one repetition's time with another's clock
  EXPECT_TRUE(m.energy_j);  // energy does not need the clock
}

TEST(EnergyMetrics, RejectsAnEmptyRepetition) {
  EXPECT_THROW(cycle_and_energy_metrics({rep(0.0, 500, 1500, 1)}, true, false), std::invalid_argument);
  EXPECT_THROW(cycle_and_energy_metrics({rep(1.0, 0, 1500, 1)}, true, false), std::invalid_argument);
}

TEST(EnergyMetrics, DerivedMetricsHaveTheirDirection) {
  // A 4096^3 GEMM: 2 * 4096^3 = 137.4 GFLOP per run; 0.2 J per run -> 0.687 TFLOP/J (TFLOP/s per W).
  const double tflop = 2.0 * 4096.0 * 4096.0 * 4096.0 / 1e12;
  const auto eff = work_per_joule_metric("TFLOP/s/W", tflop, {0.2, 0.25});
  ASSERT_TRUE(eff);
  EXPECT_EQ(eff->direction, better::higher);
  EXPECT_DOUBLE_EQ(eff->samples[0], tflop / 0.2);
  EXPECT_NEAR(eff->samples[0], 0.687194767, 1e-9);
  EXPECT_DOUBLE_EQ(eff->samples[1], tflop / 0.25);
  // A 128 -> 256 generate: 128 generated tokens; 64 J per generate -> 0.5 J per token.
  const auto jpt = joules_per_work_metric("J/token", 128, {64.0, 70.4});
  ASSERT_TRUE(jpt);
  EXPECT_EQ(jpt->direction, better::lower);
  EXPECT_EQ(jpt->unit, "J/token");
  EXPECT_DOUBLE_EQ(jpt->samples[0], 0.5);
  EXPECT_DOUBLE_EQ(jpt->samples[1], 0.55);
  // No energy, no derived metric.
  EXPECT_FALSE(work_per_joule_metric("TFLOP/s/W", tflop, {}));
  EXPECT_FALSE(joules_per_work_metric("J/token", 128, {}));
}

TEST(EnergyMetrics, SmCyclesAreTimeTimesTheCountedClockAndNeedNoNvml) {
  // The NVML point samples say 1500 / 1425 MHz; the SMs counted 1700 and 1600 MHz on average over
  // the repetitions: sm_cycles pairs each time with its counted clock, cycles with NVML's.
  auto a = rep(2.0, 500, 1500, 700000);
  auto b = rep(2.2, 455, 1425, 690000);
  a.counted_mhz = 1700;
  b.counted_mhz = 1600;
  const auto m = cycle_and_energy_metrics({a, b}, true, false);
  ASSERT_TRUE(m.sm_cycles);
  EXPECT_EQ(m.sm_cycles->unit, "Mcycles");
  EXPECT_EQ(m.sm_cycles->direction, better::lower);
  ASSERT_EQ(m.sm_cycles->samples.size(), 2u);
  EXPECT_DOUBLE_EQ(m.sm_cycles->samples[0], 3.4);
  EXPECT_DOUBLE_EQ(m.sm_cycles->samples[1], 3.52);
  ASSERT_TRUE(m.cycles);
  EXPECT_DOUBLE_EQ(m.cycles->samples[0], 3.0);
  // The counters are the GPU's own: without NVML sm_cycles stays, cycles and energy go.
  const auto no_nvml = cycle_and_energy_metrics({a, b}, false, false);
  ASSERT_TRUE(no_nvml.sm_cycles);
  EXPECT_DOUBLE_EQ(no_nvml.sm_cycles->samples[1], 3.52);
  EXPECT_FALSE(no_nvml.cycles);
  EXPECT_FALSE(no_nvml.energy_j);
}

TEST(EnergyMetrics, ARepetitionWithoutACountedClockLeavesSmCyclesOut) {
  auto a = rep(2.0, 500, 1500, 700000);
  a.counted_mhz = 1700;
  const auto b = rep(2.2, 455, 1425, 690000);  // the stamps paired no SM
  const auto m = cycle_and_energy_metrics({a, b}, true, false);
  EXPECT_FALSE(m.sm_cycles);
  EXPECT_TRUE(m.cycles);
}
