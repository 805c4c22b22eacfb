// Rounds in fresh processes, shared by `run --rounds N` and `ab`: the child `run` command line for
// one round, and one side's rounds gathered and merged (round_merge.hpp) after every round, so
// what was measured is on disk even if a later round crashes or the user presses Ctrl-C.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "cli/subprocess.hpp"
#include "cudabench/round_merge.hpp"
#include "cudabench/suite.hpp"

namespace cudabench::cli {

// The `run` options a round passes on to its child process.
struct child_run_options {
  std::string suite_path;  // the suite file, resolved once by the parent: every round runs the same file
  std::string filter;
  int reps = -1, warmup = -1;
  double min_time_ms = -1, warmup_ms = -1;
  int device = 0;
  std::string mem_limit;
  bool cold = false;
  bool quiet = false;       // also silences the children's progress lines
  std::string label;        // "" = the child's default
  std::string tuning_from;  // "" = tune freely
  int rounds = 1;           // > 1: the child runs its own rounds (`run --devices` with `--rounds`)
  bool strict = false;
  std::uint64_t max_workloads = default_max_workloads;
};

// `command` (a cudabench executable, possibly behind `env VAR=...`) + "run" + the options + "-o out".
std::vector<std::string> child_run_argv(const std::vector<std::string>& command, const child_run_options& o,
                                        const std::string& out_file);

// The measurement options alone (--suite ... --device ... --tuning-from), appended to `argv`: what
// `ab --devices` passes to each GPU's `ab`.
void append_run_options(std::vector<std::string>& argv, const child_run_options& o);

// One side's rounds: add() each finished round's file, merged() gives the multi-round result.
class side_rounds {
 public:
  // Reads `file` when the child left one (a partial file counts: it holds what finished).
  void add(const std::string& file, const child_result& r);
  bool any_result() const;
  std::size_t size() const { return rounds_.size(); }
  const round_input& last() const { return rounds_.back(); }
  result_file merged() const { return merge_rounds(rounds_); }

 private:
  std::vector<round_input> rounds_;
};

// Creates `dir` and its parents (input_error naming it when that fails).
void make_directories(const std::string& dir);

// "20261203T101500Z": for default file and directory names.
std::string utc_stamp();

}  // namespace cudabench::cli
