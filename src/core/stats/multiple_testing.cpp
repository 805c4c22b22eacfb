// See multiple_testing.hpp.
#include "cudabench/multiple_testing.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace cudabench {

std::vector<double> holm_adjust(const std::vector<double>& p) {
  for (double v : p)
    if (!(v >= 0 && v <= 1)) throw std::invalid_argument("holm_adjust: p-values must lie in [0, 1]");
  const std::size_t m = p.size();
  std::vector<std::size_t> order(m);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return p[a] < p[b]; });
  std::vector<double> adj(m);
  double running = 0;
  for (std::size_t i = 0; i < m; ++i) {
    running = std::max(running, std::min(1.0, p[order[i]] * static_cast<double>(m - i)));
    adj[order[i]] = running;
  }
  return adj;
}

}  // namespace cudabench
