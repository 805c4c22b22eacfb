// Change-point detection for a metric's history (one value per run, oldest first): where did it
// step, by how much, and is the step real? Method (docs/history.md):
//   - work on log values, so a step is a ratio and noise is relative;
//   - the single best step in a segment is the split that minimises the two sides' residual sum of
//     squares (least squares fit of two constant levels), each side at least `min_segment` runs;
//   - its significance is a permutation test: the best split's between-sides sum of squares against
//     the same maximum over random reorderings of the segment (which accounts for having picked the
//     best of many splits); p = (1 + #reorderings at least as extreme) / (1 + #reorderings);
//   - a step counts when p < alpha AND |step| >= threshold_pct (a real but tiny step is not news);
//     two exactly constant levels (a deterministic metric moved) need no test, as in `compare`;
//   - binary segmentation: after a step is found, each side is searched again, so a long history
//     can show several steps.
// Deterministic: the permutations come from a fixed seed. Host-only; tests/unit/test_change_point.cpp
// measures the detection and false-positive rates on synthetic nightly series.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace cudabench {

struct change_point_options {
  double alpha = 0.001;        // permutation p-value below which a step is significant
  double threshold_pct = 2.0;  // |step| below this many percent is not reported
  int min_segment = 3;         // runs on each side of a step, at least
  int permutations = 9999;     // reorderings per test (early stop once p >= alpha is certain)
  int max_steps = 8;           // per series
  std::uint64_t seed = 0x5eed'c0de'cafe'f00dULL;
};

struct change_point {
  std::size_t index = 0;           // the first value after the step (values[index] is on the new level)
  double change_pct = 0;           // geometric mean after vs before, within the segment searched, in %
  double p_value = 1;              // permutation p-value
  double before = 0, after = 0;    // the two levels (geometric means)
  std::size_t begin = 0, end = 0;  // the segment [begin, end) in which it was found
};

// Steps in `values`, ordered by index. Values must be positive and finite (a series with any other
// value yields none). Fewer than 2 * min_segment values yield none.
std::vector<change_point> detect_change_points(const std::vector<double>& values, const change_point_options& options);

}  // namespace cudabench
