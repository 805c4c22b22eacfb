// Which samples a metric can physically have, by its unit. compare refuses a file with an
// impossible one (exit 2) instead of turning it into "+173% improved": a time is > 0, a rate, a
// size, cycles or an energy is >= 0, and nothing cudabench measures comes near 1e30 in its unit
// (which also keeps every sum and square in the statistics finite). Host-only; README "Comparing
// builds" lists it.
#pragma once
#include <optional>
#include <string>

namespace cudabench {

enum class unit_class {
  time,    // "ms", "ms (cold)", "s", "us", "ns": > 0
  rate,    // anything per second ("TFLOP/s", "GB/s", "tokens/s"): >= 0
  size,    // "B", "KB" ... "TB", "KiB" ... "TiB": >= 0
  energy,  // cycles, energy and what energy buys: "Mcycles", "J", "J/token", "TFLOP/s/W": >= 0
  other,   // any finite value
};

unit_class classify_unit(const std::string& unit);

inline constexpr double max_sample_magnitude = 1e30;

// Why `x` cannot be a sample in `unit` ("-0.2 ms is not a possible time (times are > 0)"), or
// nullopt when it can.
std::optional<std::string> impossible_sample(double x, const std::string& unit);

}  // namespace cudabench
