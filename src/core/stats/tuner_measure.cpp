// See tuner_measure.hpp.
#include "cudabench/tuner_measure.hpp"

#include <cstdlib>

#include <fmt/format.h>

#include "cudabench/errors.hpp"

namespace cudabench {

double tuner_measure_ms() {
  const char* env = std::getenv("CUDABENCH_TUNER_MEASURE_MS");
  if (env == nullptr || *env == '\0') return default_tuner_measure_ms;
  char* rest = nullptr;
  const double v = std::strtod(env, &rest);
  // Below 0.1 ms a measurement is a handful of launches; above a second a contest of 8 candidates
  // and 5 passes would take most of a minute per workload.
  if (*rest != '\0' || !(v >= 0.1 && v <= 1000))
    throw input_error(
        fmt::format("CUDABENCH_TUNER_MEASURE_MS={}: not a time in ms from 0.1 to 1000 (2 is the default)", env));
  return v;
}

}  // namespace cudabench
