// Student's t distribution: CDF and quantile, for the between-round test (round_test.hpp).
// Host-only; unit-tested against tabulated values (scipy.stats.t).
#pragma once

namespace cudabench {

// P(T <= t) for T ~ t(df), df > 0 (not necessarily an integer). Throws std::invalid_argument on
// df <= 0 or a NaN argument.
double student_t_cdf(double t, double df);

// P(|T| >= |t|): the two-sided p-value of a t statistic, computed directly (not as 1 - CDF) so
// that small p-values keep their precision.
double student_t_two_sided_p(double t, double df);

// The t with P(T <= t) = p, 0 < p < 1.
double student_t_quantile(double p, double df);

// P(F >= f) for F ~ F(d1, d2) (a ratio of variance estimates with d1 and d2 degrees of freedom),
// through the same incomplete beta function: I_{d2 / (d2 + d1 f)}(d2/2, d1/2). 1 for f <= 0. Throws
// std::invalid_argument on d1 or d2 <= 0 or a NaN argument.
double f_upper_tail(double f, double d1, double d2);

}  // namespace cudabench
