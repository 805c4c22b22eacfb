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

}  // namespace cudabench
