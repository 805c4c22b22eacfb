// `cudabench compare BASE.json CAND.json [MORE.json ...]`: read result (or fleet) files, compare them
// (core/compare), print one report. Exit 0, or 1 on a regression with --fail-on-regression;
// bad input throws input_error (exit 2, reported in main()).
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <future>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/compare_inputs.hpp"
#include "cli/history_noise.hpp"
#include "cli/verdict_args.hpp"
#include "cudabench/atomic_write.hpp"
#include "cudabench/compare.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/id_filter.hpp"
#include "cudabench/input_file.hpp"
#include "cudabench/report.hpp"
#include "cudabench/result.hpp"
#include "cudabench/text_safety.hpp"

namespace cudabench::cli {
namespace {

struct compare_args {
  std::vector<std::string> files;
  std::string format = "table";
  std::vector<std::string> metrics;
  std::string filter;
  double alpha = 0.05;
  double threshold = 2.0;
  bool fail_on_regression = false;
  std::string output;
  bool per_gpu = false;
  std::string history;  // a run-history database whose runs measure each row's session noise
  double power = 0.8;
};

// The files are independent: read them concurrently (a 10^6-workload file takes seconds). Errors
// are reported for the first bad file in command-line order, as a sequential read would. Where
// threads cannot start, they are read one after the other.
std::vector<compare_input> read_inputs(const std::vector<std::string>& paths) {
  std::vector<std::future<compare_input>> pending;
  try {
    for (const auto& p : paths)
      pending.push_back(std::async(std::launch::async, [p] { return read_compare_input(p); }));
  } catch (const std::system_error&) {
    pending.clear();  // waits for the ones started
    std::vector<compare_input> out;
    for (const auto& p : paths) out.push_back(read_compare_input(p));
    return out;
  }
  std::vector<compare_input> out;
  for (auto& f : pending) out.push_back(f.get());
  return out;
}

int run_compare(const compare_args& a) {
  if (a.files.size() < 2)
    throw input_error(
        fmt::format("compare needs at least two result files, the baseline first (got {})", a.files.size()));
  check_verdict_args(a.alpha, a.threshold, a.power);

  // -o over an input would destroy the baseline it is about to be compared with, whatever path
  // names it (./a.json, a symlink, a hard link): refused before anything is read (atomic_write.hpp).
  if (!a.output.empty()) check_output_path(a.output, a.files);
  // A file compared with itself is allowed (an A/A sanity check of the tool) but said out loud:
  // every row is "unchanged" by construction, which is no evidence about the builds.
  for (std::size_t i = 1; i < a.files.size(); ++i)
    for (std::size_t k = 0; k < i; ++k)
      if (const auto id = identity_of(a.files[i]); id && id == identity_of(a.files[k])) {
        fmt::print(stderr, "cudabench: note: {} is the same file as {}: those columns compare a run with itself\n",
                   terminal_text(a.files[i]), terminal_text(a.files[k]));
        break;
      }
  // Fleet files are read as result files whose rounds are their GPUs (compare_inputs.hpp).
  const std::vector<compare_input> inputs = read_inputs(a.files);
  std::vector<result_file> files;
  for (const auto& in : inputs) files.push_back(in.result);

  compare_options opt;
  opt.alpha = a.alpha;
  opt.threshold_pct = a.threshold;
  opt.metrics = a.metrics;
  opt.power = a.power;
  std::optional<noise_prior> history;
  if (!a.history.empty()) {
    history = read_history_noise(a.history);
    opt.noise.history = &*history;
  }
  if (!a.filter.empty()) opt.filter = [pattern = a.filter](const std::string& id) { return id_matches(id, pattern); };
  const comparison cmp = compare_results(files, a.files, opt);

  report_options ropt;
  const char* no_color = std::getenv("NO_COLOR");
  ropt.color = a.output.empty() && isatty(fileno(stdout)) && !(no_color && *no_color);
  const auto rep = make_reporter(a.format, ropt);
  auto write = [&](std::ostream& out) {
    if (a.per_gpu) report_per_gpu(inputs, a.files, cmp, opt, a.format, ropt.color, out);
    else rep->report(cmp, out);
  };
  if (a.output.empty()) {
    write(std::cout);
    std::cout.flush();
  } else {
    std::ostringstream text;
    write(text);
    write_file_atomically(a.output, text.str(), a.files);
  }
  return a.fail_on_regression && cmp.any_regression() ? 1 : 0;
}

}  // namespace

void add_compare(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<compare_args>();
  auto* cmd = app.add_subcommand("compare", "Compare result files: the first is the baseline");
  cmd->add_option("files", args->files, "Result or fleet JSON files: BASE.json CAND.json [MORE.json ...]")->required();
  cmd->add_option("--format", args->format, "Output format")
      ->check(CLI::IsMember({"table", "markdown", "csv", "json"}))
      ->capture_default_str();
  cmd->add_option("--metric", args->metrics,
                  "Metrics to compare, comma-separated (default: each workload's headline metric)")
      ->delimiter(',');
  cmd->add_option("--filter", args->filter, "Only workload ids matching this glob (* and ?, comma = or)");
  cmd->add_option("--alpha", args->alpha,
                  "Family-wise significance level: a row is significant when its Holm-adjusted p is below it")
      ->capture_default_str();
  cmd->add_option("--threshold", args->threshold, "Changes below this many percent are `unchanged`")
      ->capture_default_str();
  cmd->add_flag("--fail-on-regression", args->fail_on_regression,
                "Exit 1 when a metric regressed or a workload ok in the baseline fails in a candidate");
  cmd->add_option("--power", args->power,
                  "Power of each row's minimum detectable change (mde): the smallest change found this often")
      ->capture_default_str();
  cmd->add_option("--history", args->history,
                  "Run-history database (cudabench history add): each row's session noise is measured from its "
                  "stored runs, pooled with the built-in prior (`cudabench noise` shows the table)");
  cmd->add_option("-o,--output", args->output, "Write the report to FILE instead of stdout");
  cmd->add_flag("--per-gpu", args->per_gpu,
                "Fleet files: after the fleet comparison (per-GPU values as replicates), one comparison per GPU "
                "that every file has, matched by host and GPU index");
  cmd->footer(
      "Verdicts: improved / regressed (Holm-adjusted p < alpha and |change| >= threshold), unchanged\n"
      "(|change| < threshold), inconclusive (|change| >= threshold but not significant), only_in_baseline,\n"
      "only_in_candidate, failed. p comes from a between-round test on per-round medians (record rounds with\n"
      "run --rounds or ab; docs/statistics.md).\n"
      "mde: the minimum detectable change at --power after the correction. Each row's noise is measured\n"
      "(built-in prior from results/, --history), else its kind's table: `cudabench noise` prints it.\n"
      "Change is in %, positive = better. Samples must be possible for their unit: times > 0, rates and sizes\n"
      ">= 0, every magnitude <= 1e30. -o may not name an input file; a file compared with itself gets a note.\n"
      "Exit codes: 0 no regression, 1 regression with --fail-on-regression, 2 bad input.");
  cmd->callback([args, &exit_code] { exit_code = run_compare(*args); });
}

}  // namespace cudabench::cli
