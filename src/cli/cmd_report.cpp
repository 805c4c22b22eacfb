// `cudabench report FILE.json [MORE.json ...] -o report.html`: one self-contained HTML page
// (core/report/report_html). With two or more files the first is the baseline and the comparison
// uses the same options, and so gives the same verdicts, as `compare`. Exit 0, or 2 on bad input
// (thrown as input_error, reported in main()).
#include <cstdio>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.hpp"
#include "cli/history_noise.hpp"
#include "cli/verdict_args.hpp"
#include "cudabench/atomic_write.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/id_filter.hpp"
#include "cudabench/report_html.hpp"
#include "cudabench/result.hpp"

namespace cudabench::cli {
namespace {

struct report_args {
  std::vector<std::string> files;
  std::string output = "report.html";
  std::vector<std::string> metrics;
  std::string filter;
  std::string title;
  double alpha = 0.05;
  double threshold = 2.0;
  double power = 0.8;
  std::string history;  // as compare's: a run-history database whose runs measure each row's session noise
  bool quiet = false;
};

int run_report(const report_args& a) {
  check_verdict_args(a.alpha, a.threshold, a.power);
  // Before anything is read: never onto an input (report q.json -o q.json), never a directory.
  check_output_path(a.output, a.files);
  html_report_input in;
  for (const auto& f : a.files) in.files.push_back(read_result_file(f));
  in.sources = a.files;
  in.title = a.title;
  in.options.alpha = a.alpha;
  in.options.threshold_pct = a.threshold;
  in.options.metrics = a.metrics;
  in.options.power = a.power;
  std::optional<noise_prior> history;
  if (!a.history.empty()) {
    history = read_history_noise(a.history);
    in.options.noise.history = &*history;
  }
  if (!a.filter.empty())
    in.options.filter = [pattern = a.filter](const std::string& id) { return id_matches(id, pattern); };

  // One file is drawn, not compared: a --filter or --metric that selects nothing is said here, as
  // compare says it for several, instead of writing an empty page.
  if (in.files.size() == 1 && (!a.filter.empty() || !a.metrics.empty())) {
    std::set<std::string> have;
    bool matched = false, any = false;
    for (const auto& w : in.files[0].workloads) {
      if (!a.filter.empty() && !id_matches(w.id, a.filter)) continue;
      matched = true;
      for (const auto& [name, m] : w.metrics) have.insert(name);
      for (const auto& m : a.metrics) any = any || w.find_metric(m) != nullptr;
    }
    if (!matched) throw input_error(fmt::format("--filter {}: no workload of {} matches", a.filter, a.files[0]));
    if (!a.metrics.empty() && !any)
      throw input_error(fmt::format("no workload{} of {} has the requested metric(s) {} (it has: {})",
                                    a.filter.empty() ? "" : " (after --filter)", a.files[0], fmt::join(a.metrics, ", "),
                                    fmt::join(have, ", ")));
  }

  // Rendered whole, then written atomically: a browser never shows half a report, and a failure
  // leaves neither a partial page nor a temporary file.
  std::ostringstream page;
  write_html_report(in, page);
  write_file_atomically(a.output, page.str(), a.files);
  if (!a.quiet) fmt::print(stderr, "report: wrote {}\n", a.output);
  return 0;
}

}  // namespace

void add_report(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<report_args>();
  auto* cmd = app.add_subcommand("report", "Write one self-contained HTML report of result files (plots, comparison)");
  cmd->add_option("files", args->files, "Result JSON files; with several, the first is the baseline")->required();
  cmd->add_option("-o,--output", args->output, "The HTML file to write")->capture_default_str();
  cmd->add_option("--metric", args->metrics,
                  "Metrics to plot and compare, comma-separated (default: each workload's headline metric)")
      ->delimiter(',');
  cmd->add_option("--filter", args->filter, "Only workload ids matching this glob (* and ?, comma = or)");
  cmd->add_option("--alpha", args->alpha, "Family-wise significance level (as in compare)")->capture_default_str();
  cmd->add_option("--threshold", args->threshold, "Changes below this many percent are `unchanged` (as in compare)")
      ->capture_default_str();
  cmd->add_option("--power", args->power, "Power of each row's minimum detectable change (mde), as in compare")
      ->capture_default_str();
  cmd->add_option("--history", args->history,
                  "Run-history database (cudabench history add) whose runs measure each row's session noise, as "
                  "in compare");
  cmd->add_option("--title", args->title, "The page title (default: cudabench report)");
  cmd->add_flag("--quiet", args->quiet, "Do not say where the report went");
  cmd->footer(
      "The page opens offline: plots are inline SVG, there is no script and nothing is fetched.\n"
      "With two or more files it shows compare's verdicts (same --alpha/--threshold/--power/--history/--metric/\n"
      "--filter).\n"
      "Exit codes: 0 written, 2 bad input.");
  cmd->callback([args, &exit_code] { exit_code = run_report(*args); });
}

}  // namespace cudabench::cli
