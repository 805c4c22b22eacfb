// The one rule every setup-time tuner uses to choose among candidates it has timed (cuBLASLt
// algorithms, LLM GEMV launch variants and decode graphs, attention kernels). Host-only.
//
// Why a tie margin: candidates often run within a percent or two of each other, and timing noise
// then decides which one "wins", so two processes of the same binary pick differently and measure
// differently (an A/A comparison once saw llama-tiny decode 10% apart for this reason). The rule
// therefore prefers the earliest candidate (the library's or the kernel author's default order)
// among those within `margin` of the fastest: only a clear difference moves the choice.
#pragma once
#include <cstddef>
#include <vector>

namespace cudabench {

inline constexpr double default_tuner_tie_margin = 0.03;  // 3%: below it, a difference is a tie

// The margin every tuner uses: 3%, or CUDABENCH_TUNER_TIE_MARGIN=F (a fraction from 0 to 0.5).
// The variable exists to measure the rule itself: a margin makes choices flip between processes
// when two candidates differ by about the margin (an H100 A/A, 2026-12-06: Llama-2-7B 2048 ->
// 2304 decode took a 2.5% slower attention split in 4 of 9 processes, fp32 1024^3 a 3.3% slower
// cuBLASLt algorithm in 5 of 9), so an `ab` of the same build with and without it tells whether
// a smaller margin is steadier. Read on every call; a bad value throws input_error naming it.
double tuner_tie_margin();

// Index of the chosen candidate: the lowest index whose time is <= (1 + margin) * fastest.
// Non-finite or negative times mark candidates that could not run; they are never chosen.
// Throws std::invalid_argument when no candidate has a usable time.
std::size_t pick_fastest(const std::vector<double>& ms, double margin = tuner_tie_margin());

}  // namespace cudabench
