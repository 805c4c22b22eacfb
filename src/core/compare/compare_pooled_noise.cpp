// See compare_parts.hpp (pool_round_noise) and docs/statistics.md "A GPU model with no history".
// Why: the kind's fallback table is the noisiest row of the class ever measured on the H200, so on
// any other GPU model every row was judged as that noisy row (an fp32 GEMM whose rounds agree to
// 0.3% got a 7% minimum detectable change on the H100). The rows of one comparison measure their
// own kind's between-round noise; fitted as an empirical-Bayes prior, the rows shrink toward their
// kind's level only as far as the kind's rows agree with each other.
#include <cmath>
#include <map>

#include "compare_parts.hpp"
#include "cudabench/row_noise.hpp"
#include "cudabench/variance_prior.hpp"

namespace cudabench::compare_detail {

namespace {

struct observed {
  double ss = 0;  // sum over files of squared deviations of log round medians from the file's mean
  int df = 0;     // sum over files of (rounds - 1)
};

// The row's between-round variance within each file, pooled over the files that ran it.
observed within_file_variance(const compare_row& row) {
  observed out;
  for (const compare_cell& c : row.cells) {
    const auto& m = c.round_medians;
    if (!c.present || c.state != status::ok || m.size() < 2) continue;
    bool positive = true;
    for (double x : m) positive = positive && x > 0 && std::isfinite(x);
    if (!positive) continue;
    double mean = 0;
    for (double x : m) mean += std::log(x);
    mean /= static_cast<double>(m.size());
    for (double x : m) out.ss += (std::log(x) - mean) * (std::log(x) - mean);
    out.df += static_cast<int>(m.size()) - 1;
  }
  return out;
}

}  // namespace

int pool_round_noise(std::vector<compare_row>& rows, std::vector<noise_model>& noise) {
  // Per kind: the fallback rows whose rounds vary at all, and their variances. A row whose rounds
  // agree to the timer's resolution (a peak-memory row) says nothing of the kind's noise (log 0 has
  // no place in the fit) and is judged without it; a row with no rounds keeps the kind's table.
  std::map<std::string, std::vector<std::size_t>> members;
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> variances;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (noise[r].round_source != "fallback") continue;
    const observed o = within_file_variance(rows[r]);
    if (o.df == 0 || !(o.ss / o.df > resolution_sd * resolution_sd)) continue;
    members[rows[r].kind].push_back(r);
    auto& [s2, df] = variances[rows[r].kind];
    s2.push_back(o.ss / o.df);
    df.push_back(o.df);
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
      // An infinite weight (the kind's rows agree beyond sampling) is capped by compare's --prior-df.
      n.round_df = std::isfinite(fit->df) ? fit->df : 1e9;
      n.round_source = pooled_round_source;
      rows[r].noise = n;
      ++pooled;
    }
  }
  return pooled;
}

}  // namespace cudabench::compare_detail
