// The one rule every setup-time tuner uses to choose among candidates it has timed (cuBLASLt
// algorithms, LLM GEMV launch variants and decode graphs, attention kernels). Host-only.
//
// Why a tie margin: candidates often run within a fraction of a percent of each other, and timing
// noise then decides which one "wins", so two processes of the same binary pick differently. The
// rule therefore prefers the earliest candidate (the library's or the kernel author's default
// order) among those within `margin` of the fastest: only a clear difference moves the choice.
//
// Why 0.5%: a margin does not end flips, it moves them. Where two candidates differ by about the
// margin, timing noise puts the slower one inside it in some processes and not in others, and the
// rows then spread by about the margin. So the margin should be as small as the tuners' timing
// noise allows: they time graph replays (tuner_timer.hpp), which resolve ~0.1-0.3%. The first
// margin, 3%, dated from tuners that timed launch loops (an A/A then saw llama-tiny 10% apart).
// Measured on an H100 (2026-12-06, results/h100/verdicts/tie-margin-ace9bf0/), 3% against 0.5%,
// fresh processes: Llama-2-7B 2048 -> 2304 decode took a 2.5% slower attention split in 3 of 10
// processes at 3% (round spread 2.6%) and in none of 10 at 0.5% (0.04-0.08%); tf32 1024^3 spread
// 5.7-8.5% at 3% and 2.2-5.8% at 0.5%; fp16 and bf16 1024^3 about the same under both (1.7-3.2%).
#pragma once
#include <cstddef>
#include <vector>

namespace cudabench {

inline constexpr double default_tuner_tie_margin = 0.005;  // 0.5%: below it, a difference is a tie

// The margin every tuner uses: 0.5%, or CUDABENCH_TUNER_TIE_MARGIN=F (a fraction from 0 to 0.5),
// so an `ab` of one build against itself under another margin measures the rule itself
// (CUDABENCH_TUNER_TIE_MARGIN=0.03 is the old rule). Read on every call; a bad value throws
// input_error naming it.
double tuner_tie_margin();

// Index of the chosen candidate: the lowest index whose time is <= (1 + margin) * fastest.
// Non-finite or negative times mark candidates that could not run; they are never chosen.
// Throws std::invalid_argument when no candidate has a usable time.
std::size_t pick_fastest(const std::vector<double>& ms, double margin = tuner_tie_margin());

}  // namespace cudabench
