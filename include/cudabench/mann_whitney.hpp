// Two-sided Mann–Whitney U (Wilcoxon rank-sum) test over two sets of repetition samples.
// Host-only; p-values unit-tested against exact known values and scipy.
//
// Method:
// - Up to `exact_limit` samples in total (default 60: every realistic repetition count), the
//   p-value is exact: the permutation distribution of group A's rank sum over all C(n1+n2, n1)
//   ways to split the pooled samples, counted by dynamic programming over (doubled) mid-ranks.
//   Without ties this is the classical exact U distribution (n=5 vs 5 fully separated gives
//   p = 2/252); with ties it is the exact conditional (permutation) distribution given the tie
//   pattern, the same as scipy.stats.permutation_test with the U statistic.
// - Above that, the normal approximation with the tie correction of the variance and a
//   continuity correction of 0.5 (scipy.stats.mannwhitneyu(method="asymptotic")).
// Two-sided p = min(1, 2 * min(P(U <= u), P(U >= u))).
#pragma once
#include <cstddef>
#include <vector>

namespace cudabench {

struct u_test_result {
  double u = 0;        // U of sample a: #pairs a_i > b_j, plus 0.5 per tie
  double p_value = 1;  // two-sided
  bool exact = true;   // false: normal approximation
  bool ties = false;   // the pooled samples contain equal values
};

// Throws std::invalid_argument on an empty sample set or a NaN/infinite sample.
u_test_result mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b,
                             std::size_t exact_limit = 60);

}  // namespace cudabench
