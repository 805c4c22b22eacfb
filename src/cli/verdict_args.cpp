// See verdict_args.hpp.
#include "cli/verdict_args.hpp"

#include <cmath>

#include <fmt/format.h>

#include "cudabench/compare.hpp"
#include "cudabench/errors.hpp"

namespace cudabench::cli {

void check_verdict_args(double alpha, double threshold_pct, double power) {
  if (!(alpha >= min_alpha && alpha < 1))
    throw input_error(fmt::format("--alpha {} must be between {:g} and 1", alpha, min_alpha));
  if (!(std::isfinite(threshold_pct) && threshold_pct >= 0))
    throw input_error(fmt::format("--threshold {} must be a non-negative percentage", threshold_pct));
  if (!(power > 0 && power < 1)) throw input_error(fmt::format("--power {} must be between 0 and 1", power));
}

}  // namespace cudabench::cli
