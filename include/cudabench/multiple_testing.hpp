// Family-wise error control over a comparison's rows: Holm's step-down adjustment (Holm 1979,
// "A simple sequentially rejective multiple test procedure", Scand. J. Statist. 6(2)). A row is
// significant when its adjusted p-value is below alpha; the chance of any false alarm among all
// rows stays at or below alpha, whatever the dependence between rows. Host-only.
#pragma once
#include <vector>

namespace cudabench {

// Holm-adjusted p-values, in the input order: sorted ascending, p_(i) * (m - i + 1), made
// monotone, capped at 1. Throws std::invalid_argument on a value outside [0, 1].
std::vector<double> holm_adjust(const std::vector<double>& p_values);

}  // namespace cudabench
