#include "cli/round_budget.hpp"

#include <algorithm>

namespace cudabench::cli {

round_budget::round_budget(double limit_s, std::size_t sides) : limit_s_(limit_s), longest_(sides, 0.0) {}

void round_budget::ran(std::size_t side, double seconds) {
  if (side < longest_.size()) longest_[side] = std::max(longest_[side], seconds);
}

double round_budget::expected_round_s() const {
  const double any = longest_.empty() ? 0.0 : *std::max_element(longest_.begin(), longest_.end());
  double total = 0;
  for (double s : longest_) total += s > 0 ? s : any;
  return total;
}

bool round_budget::next_round_fits(double elapsed_s) const {
  if (!limited()) return true;
  const double expected = expected_round_s();
  return expected <= 0 || elapsed_s + expected <= limit_s_;
}

}  // namespace cudabench::cli
