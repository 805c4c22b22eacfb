// The prior of a row's between-round variance learned from the other rows of the same comparison,
// for rows no measurement knows (a GPU model with no committed sessions and no history): Smyth's
// empirical-Bayes fit of a scaled inverse chi-square distribution to many rows' sample variances
// (Smyth 2004, "Linear models and empirical Bayes methods for assessing differential expression",
// Stat. Appl. Genet. Mol. Biol. 3(1), section 6.2; the estimator of limma's fitFDist).
// Each row's s^2 is s0^2 * F(df, d0)-distributed under the model; log s^2 has mean
// log s0^2 + digamma(df/2) - log(df/2) - digamma(d0/2) + log(d0/2) and variance
// trigamma(df/2) + trigamma(d0/2), so the moments of the rows' log variances give s0^2 and d0.
// Rows that agree beyond what sampling explains give d0 = infinity (the prior is their common level);
// rows as different as a 0.1% GEMM and a 20% pageable copy give a small d0, so each keeps mostly its
// own rounds. Host-only.
#pragma once
#include <optional>
#include <vector>

namespace cudabench {

double digamma(double x);
double trigamma(double x);
double tetragamma(double x);
// The x > 0 with trigamma(x) = y (y > 0), by Newton's method from Smyth's starting point.
double trigamma_inverse(double y);

struct variance_prior {
  double s2 = 0;  // s0^2: the prior's scale (a variance)
  double df = 0;  // d0: its weight in degrees of freedom; +infinity when the rows' variances agree
  int rows = 0;   // rows the fit used
};

// Least rows a fit needs: below it, the spread of the rows' log variances says nothing reliable about d0.
inline constexpr int variance_prior_min_rows = 4;

// s2[i] > 0 with df[i] > 0 degrees of freedom (parallel). nullopt with fewer than
// variance_prior_min_rows rows. Throws std::invalid_argument on mismatched sizes or a value <= 0.
std::optional<variance_prior> fit_variance_prior(const std::vector<double>& s2, const std::vector<double>& df);

}  // namespace cudabench
