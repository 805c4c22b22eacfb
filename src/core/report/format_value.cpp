// See format_value.hpp.
#include "cudabench/format_value.hpp"

#include <cmath>

#include <fmt/format.h>

namespace cudabench {

std::string format_value(double v) {
  if (v == 0) return "0";
  const double a = std::abs(v);
  if (a >= 1e-3 && a < 1e15) {
    const int magnitude = static_cast<int>(std::floor(std::log10(a)));
    const int decimals = magnitude >= 3 ? 0 : 3 - magnitude;
    return fmt::format("{:.{}f}", v, decimals);
  }
  return fmt::format("{:.3e}", v);
}

}  // namespace cudabench
