// Which GPUs of a fleet are outliers on one workload: a robust z-score against the fleet median
// (median absolute deviation), and a minimum relative deviation so a uniform fleet flags nothing.
// Host-only; unit-tested in tests/unit/test_fleet_outliers.cpp; the rule is documented in
// docs/fleet.md ("The outlier rule").
//
// For the values v_1..v_n of one workload's headline metric (one per GPU, n >= min_gpus):
//   m   = median(v),  MAD = median(|v_i - m|),  z_i = (v_i - m) / (1.4826 * MAD)
//   GPU i is an outlier when |z_i| > k  AND  |v_i - m| / |m| >= floor
//   floor = max(min_deviation_pct, session_multiple * the kind's session noise)   (gpu_spread_floor.hpp)
// z is Iglewicz and Hoaglin's modified z-score (0.6745 (v - m) / MAD; "How to Detect and Handle
// Outliers", ASQC 1993), cut at their 3.5. The MAD ignores up to half the fleet being off, so one
// slow GPU cannot hide itself by inflating the spread (a standard deviation would). The floor is
// what makes a uniform fleet quiet: identical GPUs differ by fractions of a percent, which is a
// huge z when the MAD is tiny (or zero), yet no one should be paged for it; and no GPU is called
// an outlier for a deviation that one fresh process on one GPU could show (the kind's documented
// between-session noise, times three).
#pragma once
#include <limits>
#include <vector>

namespace cudabench {

struct outlier_rule {
  double k = 3.5;                  // robust z beyond which a GPU may be an outlier
  double min_deviation_pct = 5.0;  // and at least this far from the fleet median, in %
  double session_multiple = 3.0;   // the floor is also at least this many session sds of the kind
  int min_gpus = 3;                // fewer GPUs: no median to stand against; spread only
};

struct outlier_verdict {
  double deviation_pct = 0;  // (v - m) / |m| * 100, signed as the value (not yet "better"/"worse")
  double robust_z = 0;       // (v - m) / (1.4826 MAD); +-infinity when the MAD is 0 and v != m
  bool outlier = false;
};

struct outlier_analysis {
  double median = 0, mad = 0, min = 0, max = 0;
  double spread_pct = 0;                   // (max - min) / |median| * 100
  double floor_pct = 0;                    // the minimum relative deviation applied
  bool judged = false;                     // enough GPUs (min_gpus) and a non-zero median
  std::vector<outlier_verdict> per_value;  // parallel to the input
};

// `values`: one per GPU (finite). `session_sd`: the kind's relative between-session sd (0.02 = 2%).
// Throws std::invalid_argument on empty or non-finite input.
outlier_analysis find_outliers(const std::vector<double>& values, double session_sd, const outlier_rule& rule);

}  // namespace cudabench
