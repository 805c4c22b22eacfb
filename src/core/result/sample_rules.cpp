// See sample_rules.hpp.
#include "cudabench/sample_rules.hpp"

#include <cmath>

#include <fmt/format.h>

namespace cudabench {
namespace {

// The unit's first word: "ms (cold)" -> "ms".
std::string head_word(const std::string& unit) { return unit.substr(0, unit.find(' ')); }

}  // namespace

unit_class classify_unit(const std::string& unit) {
  const std::string u = head_word(unit);
  if (u == "ms" || u == "s" || u == "us" || u == "µs" || u == "ns") return unit_class::time;
  if (u.size() > 2 && u.compare(u.size() - 2, 2, "/s") == 0) return unit_class::rate;
  for (const char* s : {"B", "KB", "MB", "GB", "TB", "KiB", "MiB", "GiB", "TiB"})
    if (u == s) return unit_class::size;
  for (const char* s : {"Mcycles", "J", "J/token", "TFLOP/s/W"})
    if (u == s) return unit_class::energy;
  return unit_class::other;
}

std::optional<std::string> impossible_sample(double x, const std::string& unit) {
  const std::string shown = fmt::format("{} {}", x, unit);
  if (!std::isfinite(x)) return fmt::format("{} is not a finite number", shown);
  if (std::fabs(x) > max_sample_magnitude)
    return fmt::format("{} is beyond any measurement (magnitudes above {:g} are refused)", shown, max_sample_magnitude);
  switch (classify_unit(unit)) {
    case unit_class::time:
      if (!(x > 0)) return fmt::format("{} is not a possible time (times are > 0)", shown);
      break;
    case unit_class::rate:
      if (x < 0) return fmt::format("{} is not a possible rate (rates are >= 0)", shown);
      break;
    case unit_class::size:
      if (x < 0) return fmt::format("{} is not a possible size (sizes are >= 0)", shown);
      break;
    case unit_class::energy:
      if (x < 0) return fmt::format("{} is not possible (cycles and energy are >= 0)", shown);
      break;
    case unit_class::other: break;
  }
  return std::nullopt;
}

}  // namespace cudabench
