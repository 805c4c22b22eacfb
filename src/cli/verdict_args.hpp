// The verdict options compare, ab and report share (--alpha, --threshold, --power): one check, so
// the three accept and refuse the same values with the same words.
#pragma once

namespace cudabench::cli {

// input_error naming the option when alpha is outside [min_alpha, 1) (compare.hpp), the threshold
// is not a finite percentage >= 0, or the power is outside (0, 1).
void check_verdict_args(double alpha, double threshold_pct, double power);

}  // namespace cudabench::cli
