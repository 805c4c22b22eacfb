// `ab --time-limit`: whether the next round fits in what is left of a time limit. A job with a
// fixed slot (a Slurm allocation, a leased GPU) stops before a round it cannot finish, instead of
// being killed inside one and losing the round's runs that did finish; `ab --resume` continues.
#pragma once
#include <chrono>
#include <cstddef>
#include <vector>

namespace cudabench::cli {

// Seconds from `t` to now, on the clock the budget's callers time their runs with.
inline double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

class round_budget {
 public:
  // limit_s <= 0: no limit, every round fits.
  round_budget(double limit_s, std::size_t sides);

  bool limited() const { return limit_s_ > 0; }
  double limit_s() const { return limit_s_; }

  // A run of `side` took `seconds`.
  void ran(std::size_t side, double seconds);

  // A round takes each side's longest run so far; a side that has not run yet, the longest of any
  // side. 0 before any run.
  double expected_round_s() const;

  // Whether a round starting `elapsed_s` after the limit's start is expected to end within the
  // limit. With no run seen yet there is nothing to expect from, and the round runs.
  bool next_round_fits(double elapsed_s) const;

 private:
  double limit_s_;
  std::vector<double> longest_;  // per side; 0 = not run yet
};

}  // namespace cudabench::cli
