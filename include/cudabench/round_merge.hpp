// Merging rounds: each round of `run --rounds N` (and each side-round of `ab`) is a whole suite run
// in a fresh process with its own result file; merge_rounds() turns them into one result file whose
// samples carry their round index. Host-only; unit-tested in tests/unit/test_round_merge.cpp.
#pragma once
#include <string>
#include <vector>

#include "cudabench/result.hpp"

namespace cudabench {

struct round_input {
  result_file result;      // what the round's process wrote (possibly partial if it crashed)
  int exit_code = 0;       // the process's exit status (128 + signal when killed)
  bool has_result = true;  // false: the process wrote no readable file
  std::string note;        // why not, for the log
};

// Rules:
// - header (tool, build, environment, suite, settings) from the first round with a result;
//   `rounds` = rounds.size(); `round_log` one entry per round.
// - workloads in the first round's order, then any that only later rounds have.
// - a workload ok in every round that has it: metrics' samples concatenated with their round
//   index (summary recomputed), clocks concatenated, peak memory the maximum, validation the
//   worst; tuning from its first round, every round's in tuning_by_round when they differ.
// - a workload not ok in some round: that status (the first such round's) with "round K of N: "
//   before its message; the ok rounds' samples are kept (nothing measured is dropped), but a
//   comparison treats the workload as failed.
// - a workload missing from a round whose process failed: noted in the message; if it is ok in the
//   others it stays ok with fewer rounds.
// Throws input_error when no round has a result, or rounds come from different suites.
result_file merge_rounds(const std::vector<round_input>& rounds);

}  // namespace cudabench
