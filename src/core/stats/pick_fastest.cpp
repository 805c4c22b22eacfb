// See pick_fastest.hpp.
#include "cudabench/pick_fastest.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace cudabench {

std::size_t pick_fastest(const std::vector<double>& ms, double margin) {
  if (!(margin >= 0)) throw std::invalid_argument("pick_fastest: margin must be >= 0");
  double best = std::numeric_limits<double>::infinity();
  for (double t : ms)
    if (std::isfinite(t) && t >= 0 && t < best) best = t;
  if (!std::isfinite(best)) throw std::invalid_argument("pick_fastest: no candidate could run");
  for (std::size_t i = 0; i < ms.size(); ++i)
    if (std::isfinite(ms[i]) && ms[i] >= 0 && ms[i] <= (1 + margin) * best) return i;
  return 0;  // unreachable: the fastest itself qualifies
}

}  // namespace cudabench
