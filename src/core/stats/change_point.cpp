// See change_point.hpp and docs/history.md. The best split of log values x[0..n) maximises the
// between-sides sum of squares B(k) = k (n - k) / n * (mean(x[0..k)) - mean(x[k..n)))^2, which is
// the same as minimising the residual sum of squares of a two-level fit (total SS = B + residual,
// fixed for the segment). Prefix sums make one scan O(n). The permutation test reuses the same
// scan on shuffled copies; shuffling keeps the total SS, so max B is a fair statistic, and the
// maximum over k is compared so that searching many splits is paid for.
#include "cudabench/change_point.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace cudabench {

namespace {

struct best_split {
  std::size_t k = 0;  // split position within the segment (first index of the right side)
  double stat = -1;   // between-sides sum of squares
};

best_split scan(const std::vector<double>& x, std::size_t min_seg) {
  const std::size_t n = x.size();
  double total = 0;
  for (double v : x) total += v;
  best_split best;
  double left = 0;
  for (std::size_t k = 1; k < n; ++k) {
    left += x[k - 1];
    if (k < min_seg || n - k < min_seg) continue;
    const double nl = static_cast<double>(k), nr = static_cast<double>(n - k);
    const double diff = left / nl - (total - left) / nr;
    const double stat = nl * nr / static_cast<double>(n) * diff * diff;
    if (stat > best.stat) best = {k, stat};
  }
  return best;
}

// A portable Fisher-Yates (std::shuffle's sequence is implementation-defined): same data, same
// seed, same p-value on every platform.
void shuffle(std::vector<double>& v, std::mt19937_64& rng) {
  for (std::size_t i = v.size(); i > 1; --i) {
    const std::size_t j = static_cast<std::size_t>(rng() % i);
    std::swap(v[i - 1], v[j]);
  }
}

void segment(const std::vector<double>& logs, std::size_t begin, std::size_t end, const change_point_options& opt,
             std::mt19937_64& rng, std::vector<change_point>& out) {
  const std::size_t m = static_cast<std::size_t>(std::max(1, opt.min_segment));
  if (end - begin < 2 * m || static_cast<int>(out.size()) >= opt.max_steps) return;
  std::vector<double> x(logs.begin() + static_cast<std::ptrdiff_t>(begin),
                        logs.begin() + static_cast<std::ptrdiff_t>(end));
  const best_split best = scan(x, m);
  if (best.stat <= 0) return;  // flat segment
  double before = 0, after = 0;
  for (std::size_t i = 0; i < best.k; ++i) before += x[i];
  for (std::size_t i = best.k; i < x.size(); ++i) after += x[i];
  before /= static_cast<double>(best.k);
  after /= static_cast<double>(x.size() - best.k);
  const double change_pct = (std::exp(after - before) - 1) * 100;
  if (std::abs(change_pct) < opt.threshold_pct) return;  // too small to matter: not tested further

  // Two exactly constant levels (a deterministic metric such as peak memory moved): no noise, so
  // the step is certain and judged by the threshold alone, as `compare` does. Otherwise a
  // permutation test with an early stop: once `limit` reorderings reached the observed statistic,
  // p >= alpha is certain and the rest cannot change the decision.
  double total_ss = 0, mean = (before * static_cast<double>(best.k) + after * static_cast<double>(x.size() - best.k)) /
                              static_cast<double>(x.size());
  for (double v : x) total_ss += (v - mean) * (v - mean);
  const std::size_t at = begin + best.k;
  auto accept = [&](double p) {
    segment(logs, begin, at, opt, rng, out);
    if (static_cast<int>(out.size()) >= opt.max_steps) return;
    out.push_back({at, change_pct, p, std::exp(before), std::exp(after), begin, end});
    segment(logs, at, end, opt, rng, out);
  };
  if (total_ss - best.stat <= 1e-12 * total_ss) return accept(0.0);
  const int perms = std::max(1, opt.permutations);
  const int limit = static_cast<int>(std::ceil(opt.alpha * (perms + 1)));
  std::vector<double> y = x;
  int extreme = 0, done = 0;
  for (; done < perms && extreme < limit; ++done) {
    shuffle(y, rng);
    if (scan(y, m).stat >= best.stat * (1 - 1e-12)) ++extreme;
  }
  const double p = (1.0 + extreme) / (1.0 + done);
  if (p < opt.alpha) accept(p);
}

}  // namespace

std::vector<change_point> detect_change_points(const std::vector<double>& values, const change_point_options& options) {
  std::vector<change_point> out;
  std::vector<double> logs;
  logs.reserve(values.size());
  for (double v : values) {
    if (!(v > 0) || !std::isfinite(v)) return out;
    logs.push_back(std::log(v));
  }
  std::mt19937_64 rng(options.seed ^ (values.size() * 0x9e3779b97f4a7c15ULL));
  segment(logs, 0, logs.size(), options, rng, out);
  std::sort(out.begin(), out.end(), [](const change_point& a, const change_point& b) { return a.index < b.index; });
  return out;
}

}  // namespace cudabench
