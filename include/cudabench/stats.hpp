// Summary statistics over repetition samples. Host-only; unit-tested with exact values.
#pragma once
#include <vector>

namespace cudabench {

struct summary {
  double median = 0, mean = 0, stddev = 0, min = 0, max = 0;  // stddev: sample (n-1); 0 if n<2
};

// Throws std::invalid_argument on empty input or NaN/inf samples.
summary summarize(const std::vector<double>& samples);
double median(std::vector<double> samples);

}  // namespace cudabench
