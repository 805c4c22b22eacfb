// SM-clock cycles and energy per run, from what the harness read around each timed repetition
// (docs/statistics.md "Cycles and energy"). Under a power cap the clock wanders, so time measures
// the power state as much as the code; cycles (time x clock) and energy (J per run) are the reading
// aids that tell the two apart. Host-only: the rules below are tested without a GPU.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cudabench/result.hpp"

namespace cudabench {

// NVIDIA documents no update period for nvmlDeviceGetTotalEnergyConsumption. Measured on the H200
// (driver 580, 2026-12-04, polled ~200-300 times a second for 2 s, idle at 124 W and under an fp16
// GEMM at 688 W): it changes every 100 ms (median; 47-115 ms). A delta over a window W is off by up
// to about one period's energy at each end, so an 800 ms window (8 updates) bounds that error near
// 12% per repetition, and the median over repetitions (random phases) does better. Shorter
// repetitions get no energy rather than a misleading one. The advice is --min-time-ms 1000: the
// harness sizes repetitions from a calibration, so some come out a little shorter (918 and 993 ms
// measured at 1000).
inline constexpr double energy_min_window_ms = 800;
inline constexpr double energy_advised_min_time_ms = 1000;

// What the harness read for one timed repetition.
struct repetition_reading {
  double per_run_ms = 0;                   // the repetition's time sample: timed elapsed / runs
  long runs = 0;                           // runs in the timed batch
  std::optional<double> sm_mhz;            // NVML's SM clock, a point sample read right after it
  std::optional<double> counted_mhz;       // the SMs' average clock over it, from their cycle counters
  std::optional<std::uint64_t> energy_mj;  // NVML's total-energy counter advance over it (after - before)
  bool energy_counter_read = false;        // both reads of the counter succeeded
  bool energy_counter_went_back = false;   // after < before (driver reloaded): no delta
};

struct cycle_energy_metrics {
  std::optional<metric> cycles;        // "Mcycles" per run, one sample per repetition (NVML's point clock)
  std::optional<metric> sm_cycles;     // "Mcycles" per run from the counted average clock
  std::optional<metric> energy_j;      // "J" per run, one sample per repetition
  std::string energy_absent;           // why energy_j is absent, "" when it is present
  std::vector<double> energy_per_run;  // energy_j's samples (for the workload's derived metrics)
};

// `cold`: every run was preceded by an L2 flush inside the counter's window, so the energy would
// be the flushes' too and is left out. `nvml_available` false: neither cycles nor energy is emitted
// and no reason is given here (the environment says once why NVML is missing). sm_cycles needs no
// NVML: it is emitted when every repetition has a counted clock.
cycle_energy_metrics cycle_and_energy_metrics(const std::vector<repetition_reading>& reps, bool nvml_available,
                                              bool cold);

// Derived from energy per run: work per joule, e.g. TFLOP per J (= TFLOP/s per W), higher is
// better; and joules per unit of work, e.g. J per generated token, lower is better. Absent when
// there is no energy or no work.
std::optional<metric> work_per_joule_metric(const std::string& unit, double work_per_run,
                                            const std::vector<double>& energy_j_per_run);
std::optional<metric> joules_per_work_metric(const std::string& unit, double work_per_run,
                                             const std::vector<double>& energy_j_per_run);

}  // namespace cudabench
