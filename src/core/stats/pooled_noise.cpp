// See pooled_noise.hpp. Why: the kind's fallback table is the noisiest row of the class ever measured
// on the H200, so on any other GPU model every row was judged as that noisy row (an fp32 GEMM whose
// rounds agree to 0.3% got a 7% minimum detectable change on an H100). The rows measured together
// measure their kind's between-round noise; fitted as an empirical-Bayes prior, the rows shrink
// toward their kind's level only as far as the kind's rows agree with each other.
#include "cudabench/pooled_noise.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <stdexcept>

#include "cudabench/row_noise.hpp"
#include "cudabench/variance_prior.hpp"

namespace cudabench {

void add_round_evidence(round_evidence& e, const std::vector<double>& m) {
  if (m.size() < 2) return;
  for (double x : m)
    if (!(x > 0) || !std::isfinite(x)) return;
  double mean = 0;
  for (double x : m) mean += std::log(x);
  mean /= static_cast<double>(m.size());
  for (double x : m) e.ss += (std::log(x) - mean) * (std::log(x) - mean);
  e.df += static_cast<int>(m.size()) - 1;
}

int pool_round_noise(const std::vector<round_evidence>& evidence, std::vector<noise_model>& noise) {
  if (evidence.size() != noise.size()) throw std::invalid_argument("pool_round_noise: one evidence per row");
  // Per kind: the rows to pool, and their variances (log 0 has no place in the fit).
  std::map<std::string, std::vector<std::size_t>> members;
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> variances;
  for (std::size_t r = 0; r < evidence.size(); ++r) {
    const round_evidence& e = evidence[r];
    if (noise[r].round_source != "fallback" || e.df == 0 || !(e.ss / e.df > resolution_sd * resolution_sd)) continue;
    members[e.kind].push_back(r);
    auto& [s2, df] = variances[e.kind];
    s2.push_back(e.ss / e.df);
    df.push_back(e.df);
  }
  // Every kind's variances together: the prior of rows whose kind has too few rows to fit its own
  // (a suite's two Llama rows). Rows this unlike give a small weight, so each keeps mostly its own rounds.
  std::vector<double> all_s2, all_df;
  for (const auto& [kind, v] : variances) {
    all_s2.insert(all_s2.end(), v.first.begin(), v.first.end());
    all_df.insert(all_df.end(), v.second.begin(), v.second.end());
  }
  const std::optional<variance_prior> across_kinds = fit_variance_prior(all_s2, all_df);
  int pooled = 0;
  for (const auto& [kind, rs] : members) {
    const auto& v = variances.at(kind);
    std::optional<variance_prior> fit = fit_variance_prior(v.first, v.second);
    if (!fit) fit = across_kinds;
    if (!fit) continue;
    for (std::size_t r : rs) {
      noise_model& n = noise[r];
      n.round_sd = std::max(std::sqrt(fit->s2), resolution_sd);
      // An infinite weight (the kind's rows agree beyond sampling) is capped by compare's prior_df.
      n.round_df = std::isfinite(fit->df) ? fit->df : 1e9;
      n.round_source = pooled_round_source;
      ++pooled;
    }
  }
  return pooled;
}

}  // namespace cudabench
