// See mann_whitney.hpp for the method and why.
#include "cudabench/mann_whitney.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <utility>

namespace cudabench {
namespace {

void check(const std::vector<double>& s, const char* which) {
  if (s.empty()) throw std::invalid_argument(std::string("Mann-Whitney U: sample ") + which + " is empty");
  for (double v : s)
    if (!std::isfinite(v))
      throw std::invalid_argument(std::string("Mann-Whitney U: sample ") + which + " has a NaN or infinite value");
}

// Exact two-sided p from the permutation distribution of the doubled rank sum of group A.
// count[k][s]: ways to pick k of the pooled items so their doubled ranks sum to s.
double exact_p(const std::vector<std::int64_t>& doubled_ranks, std::size_t n1, std::int64_t observed) {
  const std::size_t n = doubled_ranks.size();
  std::int64_t max_sum = 0;
  for (auto r : doubled_ranks) max_sum += r;
  std::vector<std::vector<double>> count(n1 + 1, std::vector<double>(static_cast<std::size_t>(max_sum) + 1, 0.0));
  count[0][0] = 1.0;
  for (std::size_t t = 0; t < n; ++t) {
    const std::int64_t r = doubled_ranks[t];
    for (std::size_t k = std::min(n1, t + 1); k >= 1; --k)
      for (std::int64_t s = max_sum; s >= r; --s) count[k][s] += count[k - 1][s - r];
  }
  double total = 0, le = 0, ge = 0;
  for (std::int64_t s = 0; s <= max_sum; ++s) {
    const double c = count[n1][s];
    total += c;
    if (s <= observed) le += c;
    if (s >= observed) ge += c;
  }
  return std::min(1.0, 2.0 * std::min(le, ge) / total);
}

}  // namespace

u_test_result mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b, std::size_t exact_limit) {
  check(a, "a");
  check(b, "b");
  const std::size_t n1 = a.size(), n2 = b.size(), n = n1 + n2;

  // Pool, sort, assign doubled mid-ranks (integers: positions i..j share rank (i+j+2)/2).
  std::vector<std::pair<double, bool>> pooled;  // value, from a
  pooled.reserve(n);
  for (double v : a) pooled.emplace_back(v, true);
  for (double v : b) pooled.emplace_back(v, false);
  std::sort(pooled.begin(), pooled.end(), [](const auto& x, const auto& y) { return x.first < y.first; });

  u_test_result out;
  std::vector<std::int64_t> doubled(n);
  std::int64_t rank_sum_a2 = 0;  // doubled rank sum of a
  double tie_term = 0;           // sum over tie groups of t^3 - t
  for (std::size_t i = 0; i < n;) {
    std::size_t j = i;
    while (j + 1 < n && pooled[j + 1].first == pooled[i].first) ++j;
    const auto r2 = static_cast<std::int64_t>(i + j + 2);
    const double t = static_cast<double>(j - i + 1);
    if (j > i) {
      out.ties = true;
      tie_term += t * t * t - t;
    }
    for (std::size_t k = i; k <= j; ++k) {
      doubled[k] = r2;
      if (pooled[k].second) rank_sum_a2 += r2;
    }
    i = j + 1;
  }
  const double dn1 = static_cast<double>(n1), dn2 = static_cast<double>(n2), dn = static_cast<double>(n);
  out.u = static_cast<double>(rank_sum_a2) / 2.0 - dn1 * (dn1 + 1) / 2.0;

  if (n <= exact_limit) {
    out.exact = true;
    out.p_value = exact_p(doubled, n1, rank_sum_a2);
    return out;
  }
  out.exact = false;
  const double mu = dn1 * dn2 / 2.0;
  const double var = dn1 * dn2 / 12.0 * ((dn + 1) - tie_term / (dn * (dn - 1)));
  if (!(var > 0)) {
    out.p_value = 1.0;
    return out;
  }
  const double z = (std::abs(out.u - mu) - 0.5) / std::sqrt(var);
  out.p_value = std::clamp(std::erfc(z / std::sqrt(2.0)), 0.0, 1.0);
  return out;
}

}  // namespace cudabench
