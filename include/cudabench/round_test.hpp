// The between-round test behind compare's verdicts. Host-only; simulated in
// tests/unit/test_round_test.cpp (false-alarm rate and power) and documented in
// docs/statistics.md.
//
// Why rounds: the noise that matters on a shared, power-capped GPU is between processes and machine
// starts (power state, clocks, tuner picks, host memory placement). Repetitions inside one process
// never see it, so a test over them is far too confident. A round is one whole run of the suite in
// a fresh process; the statistic works on one number per round (the median of its repetitions).
//
// The statistic: a moderated (empirical-Bayes) two-sample t test on log per-round medians
// (Smyth 2004, "Linear models and empirical Bayes methods for assessing differential expression",
// Stat. Appl. Genet. Mol. Biol. 3(1)). The between-round variance is estimated from the rounds of
// both sides and shrunk toward a prior, the documented between-round noise of the workload kind
// (noise_floor.hpp), worth `prior_df` degrees of freedom:
//     s2 = (prior_df * round_sd^2 + df_obs * s2_obs) / (prior_df + df_obs),   df = prior_df + df_obs
// Files from different sessions (not one interleaved `cudabench ab`) also differ by the sessions'
// levels, which their rounds cannot measure: the kind's session_sd enters as known variance,
//     se^2 = s2 * (1/Rb + 1/Rc) + 2 * session_sd^2
// with Welch-Satterthwaite degrees of freedom. When session_sd is itself an estimate (measured
// sessions, session_df > 0) the test takes the conservative df, min(round df, session_df), so a
// session noise measured in 2 sessions widens the t quantile far more than one measured in 10. With few rounds the
// observed variance alone is unreliable (one quiet pair of rounds would make any difference "significant"); the prior
// keeps such rows honest, and with one round per side the test falls back to the floors alone.
#pragma once
#include <vector>

namespace cudabench {

// One value per round: the median of the samples with that round index, in increasing round
// order. `rounds` is parallel to `samples`; an empty `rounds` means one round (index 0).
// Throws std::invalid_argument when sizes differ or samples are empty.
std::vector<double> round_medians(const std::vector<double>& samples, const std::vector<int>& rounds);

struct round_test_result {
  double effect = 0;      // mean log(cand) - mean log(base); on the relative scale when not all > 0
  bool log_scale = true;  // false: effect and CI are (cand - base) / |mean base|
  double se = 0;          // standard error of `effect`
  double df = 0;          // degrees of freedom of the t statistic
  double t = 0;
  double p_value = 1;              // two-sided
  double ci_low = 0, ci_high = 0;  // (1 - alpha) confidence interval of `effect`
  int observed_df = 0;             // degrees of freedom the rounds themselves gave (Rb + Rc - 2, 0 with one round each)
  double observed_sd = 0;          // their pooled between-round sd (same scale as `effect`); 0 when observed_df == 0
  // The rounds were far noisier than the prior allows (prior_misfit_p), so the prior, which would
  // have shrunk their variance, was not used: the row is judged on its own rounds.
  bool prior_set_aside = false;
};

// How unlikely the rounds' variance must be under the prior (F test, upper tail) for the prior to
// be set aside. A prior from other sessions describes the row in general; rounds 10x noisier (an
// older build timed differently, a disturbed session) are this comparison's evidence, and
// shrinking them toward a quiet prior would turn their noise into false alarms.
inline constexpr double prior_misfit_p = 0.001;

struct round_test_options {
  double round_sd = 0.03;  // prior between-round relative sd (> 0)
  double session_sd = 0;   // between-session relative sd; 0 for an interleaved A/B (same session)
  double session_df = 0;   // df behind session_sd; 0: known exactly (a documented value)
  double prior_df = 4;     // weight of round_sd, in degrees of freedom (> 0)
  double alpha = 0.05;     // for the confidence interval
};

// `base`, `cand`: per-round medians (at least one each). Throws std::invalid_argument on empty
// input, non-finite values, or options out of range.
round_test_result between_round_test(const std::vector<double>& base, const std::vector<double>& cand,
                                     const round_test_options& options);

// The relative change in % of `effect` (log or relative scale), before the direction's sign.
double effect_to_pct(double effect, bool log_scale);

// The smallest true change (in %) a t test with standard error `se` (log or relative scale) and
// `df` degrees of freedom detects with probability `power` when `rows` rows are Holm-corrected at
// family-wise `alpha` (a lone changed row needs p < alpha / rows): (t_{1-alpha/2rows} + t_power) * se.
double detectable_pct(double se, double df, double alpha, int rows, double power, bool log_scale);

// The smallest true change (in %) that the test detects with probability `power` when `rows`
// rows are Holm-corrected together (a lone changed row needs p < alpha / rows), with `rounds`
// rounds per side and noise exactly at the options' floors. Documents what a protocol can see.
double minimum_detectable_pct(const round_test_options& options, int rounds, int rows, double power);

}  // namespace cudabench
