// The SMs' average clock over a timed region, from their own cycle counters (docs/statistics.md
// "Cycles and energy"). NVML's SM clock is a point sample read after a repetition: under a power
// cap the clock wanders 1425-1980 MHz inside one 25 ms repetition, so time x that sample is as noisy
// as the time. A tiny kernel stamps each SM's cycle counter (clock64) beside the GPU's nanosecond
// timer (%globaltimer) just before and just after the region; cycles over nanoseconds on the same
// SM is the clock the region actually ran at. Host-only here: the pairing rules are tested without
// a GPU (sm_clock_probe.hpp takes the stamps).
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

namespace cudabench {

struct sm_stamp {
  std::uint64_t cycles = 0;   // clock64() on that SM
  std::uint64_t ns = 0;       // %globaltimer, the same clock on every SM
  std::uint32_t smid = 0;     // %smid: which SM's counter `cycles` is
  std::uint32_t written = 0;  // 1 once the stamp kernel wrote this slot
};

// A region shorter than this gets no average: %globaltimer ticks in up to 1 us steps on some GPUs,
// so 100 us bounds its error at 1%; the harness's repetitions last 25 ms or more.
inline constexpr std::uint64_t sm_clock_min_window_ns = 100'000;

// The median over SMs stamped both before and after of (cycles after - before) / (ns after -
// before), in MHz. Nothing when no SM is in both, a window is shorter than sm_clock_min_window_ns,
// or a counter did not advance (a counter is per SM, so only the same SM's two stamps are paired).
std::optional<double> average_sm_clock_mhz(const std::vector<sm_stamp>& before, const std::vector<sm_stamp>& after);

}  // namespace cudabench
