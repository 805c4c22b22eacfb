// See tuner_measure.hpp.
#include "cudabench/tuner_measure.hpp"

#include "cudabench/env_number.hpp"

namespace cudabench {

double tuner_measure_ms() {
  // Below 0.1 ms a measurement is a handful of launches; above a second a contest of 8 candidates
  // and 5 passes would take most of a minute per workload.
  return env_number("CUDABENCH_TUNER_MEASURE_MS", default_tuner_measure_ms, 0.1, 1000,
                    "not a time in ms from 0.1 to 1000 (2 is the default)");
}

}  // namespace cudabench
