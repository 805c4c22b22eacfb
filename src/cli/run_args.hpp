// The measurement options `run` and `ab` share (suite, filter, repetitions, warm-up, device, memory
// cap, L2 flushing), their checks, and how they become runner options or a child's command line.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "cli/round_driver.hpp"
#include "cudabench/runner_options.hpp"
#include "cudabench/suite.hpp"

namespace cudabench::cli {

struct run_args {
  std::string suite = "quick";
  std::string filter;
  int reps = -1, warmup = -1;
  double min_time_ms = -1, warmup_ms = -1;
  int device = 0;
  std::string mem_limit;
  bool cold = false, quiet = false;
  std::string devices;  // --devices all|0,2,5: one process per GPU at once ("" = just --device)
  std::string host;     // --host: this host's name in --devices file names and fleet tables
  std::uint64_t max_workloads = default_max_workloads;
  // `run` only
  std::string output;
  bool no_output = false;
  std::string format = "table";
  std::string label;
  int rounds = 1;
  double time_limit_s = 0;  // > 0: start no round expected to end later than this (round_budget.hpp)
  std::string tuning_from;
  bool dry_run = false, strict = false;
};

// --suite --filter --reps --warmup --warmup-ms --min-time-ms --device --devices --host --mem-limit --cold
// --quiet --max-workloads
void add_run_options(CLI::App& cmd, run_args& a);

// Range checks CLI11 cannot express (NaN, negative device): input_error naming the option.
void check_run_args(const run_args& a);

// The suite's defaults with the command-line overrides applied, and the other runner settings.
runner_options runner_options_of(const run_args& a, const suite& s);

// What a round's child process gets: the same options, with the suite as a resolved file path.
child_run_options child_options(const run_args& a, const std::string& suite_path);

// cudabench-SUITE-TIMESTAMP.json
std::string default_run_output(const std::string& suite_name);

}  // namespace cudabench::cli
