// A number from an environment variable, for the experiment settings the tuners read
// (CUDABENCH_TUNER_TIE_MARGIN, CUDABENCH_TUNER_MEASURE_MS). Host-only.
#pragma once
#include <string>

namespace cudabench {

// `name`'s value as a number from `lo` to `hi`, or `fallback` when it is unset or empty. Anything
// else (text, a unit after the number, nan, out of range) throws input_error "NAME=VALUE: why".
double env_number(const char* name, double fallback, double lo, double hi, const std::string& why);

}  // namespace cudabench
