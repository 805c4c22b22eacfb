// `cudabench history add|list|show|check`: the run history in SQLite (core/history/history_store)
// and the steps found in it (core/stats/change_point). `check` is what `nightly.sh --history` runs
// after adding tonight's file: exit 1 when the newest run brought a new step in a metric's bad
// direction. Bad input (a bad or foreign result file, a foreign database) throws input_error:
// exit 2, naming the file, reported in main().
#include <cmath>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cudabench/atomic_write.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/history.hpp"
#include "cudabench/history_store.hpp"
#include "cudabench/id_filter.hpp"
#include "cudabench/input_file.hpp"

namespace cudabench::cli {
namespace {

struct history_args {
  std::string db = default_history_db;
  std::vector<std::string> files;
  std::string format = "table";
  std::string filter;
  std::vector<std::string> metrics;
  std::string output;
  double threshold = 2.0;
  double alpha = 0.001;
  int min_segment = 3;
  int permutations = 9999;
  bool quiet = false;
};

history_options options_of(const history_args& a) {
  if (!(a.alpha > 0 && a.alpha < 1)) throw input_error(fmt::format("--alpha {} must be between 0 and 1", a.alpha));
  if (!(std::isfinite(a.threshold) && a.threshold >= 0))
    throw input_error(fmt::format("--threshold {} must be a non-negative percentage", a.threshold));
  if (a.min_segment < 1) throw input_error(fmt::format("--min-segment {} must be at least 1", a.min_segment));
  if (a.permutations < 1 || 1.0 / (a.permutations + 1.0) >= a.alpha)
    throw input_error(fmt::format("--permutations {} cannot give p < --alpha {} (needs at least {})", a.permutations,
                                  a.alpha, static_cast<int>(std::ceil(1.0 / a.alpha))));
  history_options o;
  if (!a.filter.empty()) o.filter = [p = a.filter](const std::string& id) { return id_matches(id, p); };
  o.metrics = a.metrics;
  o.detection.threshold_pct = a.threshold;
  o.detection.alpha = a.alpha;
  o.detection.min_segment = a.min_segment;
  o.detection.permutations = a.permutations;
  return o;
}

int run_add(const history_args& a) {
  // Every file is read and checked before the database is opened: a bad file neither creates an
  // empty database nor stores half of a batch.
  for (const auto& f : a.files)
    if (identity_of(f) && identity_of(f) == identity_of(a.db))
      throw input_error(fmt::format("--db {} is the input file {}: a result file is not a history database", a.db, f));
  std::vector<history_input> inputs;
  for (const auto& f : a.files) inputs.push_back(read_history_input(f));
  history_store store(a.db, true);
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const std::string& f = a.files[i];
    const auto r = store.add(inputs[i]);
    if (a.quiet) continue;
    if (r.replaced)
      fmt::print(stderr, "history: {}: replaced run {} (same run, newer file; {} metrics)\n", f, r.run_id, r.points);
    else if (r.added)
      fmt::print(stderr, "history: {}: stored as run {} ({} metrics) in {}\n", f, r.run_id, r.points, a.db);
    else fmt::print(stderr, "history: {}: already stored (run {}); nothing added\n", f, r.run_id);
  }
  return 0;
}

int run_list(const history_args& a) {
  const history_store store(a.db, false);
  write_history_runs(store.runs(), a.format, std::cout);
  return 0;
}

int run_show(const history_args& a) {
  const history_options opt = options_of(a);                   // bad options before any file is touched
  if (!a.output.empty()) check_output_path(a.output, {a.db});  // -o h.sqlite would destroy the history
  const history_store store(a.db, false);
  const history_view h = build_history(store, opt);
  if (a.output.empty()) {
    write_history(h, a.format, std::cout);
    return 0;
  }
  std::ostringstream text;
  write_history(h, a.format, text);
  write_file_atomically(a.output, text.str(), {a.db});
  return 0;
}

int run_check(const history_args& a) {
  const history_options opt = options_of(a);
  const history_store store(a.db, false);
  const history_view h = build_history(store, opt);
  const auto fresh = steps_new_at_newest_run(h);
  bool worse = false;
  for (const auto& n : fresh) {
    const auto& s = h.series[n.series];
    fmt::print("{}: {}\n", n.step.worse ? "NEW STEP (worse)" : "new step (better)", describe_step(h, s, n.step));
    worse = worse || n.step.worse;
  }
  if (fresh.empty() && !a.quiet)
    fmt::print("history: no new step at the newest run ({} runs, {} series)\n", h.runs.size(), h.series.size());
  return worse ? 1 : 0;
}

void detection_options(CLI::App* cmd, history_args& a) {
  cmd->add_option("--filter", a.filter, "Only workload ids matching this glob (* and ?, comma = or)");
  cmd->add_option("--metric", a.metrics, "Metrics, comma-separated (default: each workload's headline metric)")
      ->delimiter(',');
  cmd->add_option("--threshold", a.threshold, "A step smaller than this many percent is not reported")
      ->capture_default_str();
  cmd->add_option("--alpha", a.alpha, "Permutation-test level for a step")->capture_default_str();
  cmd->add_option("--min-segment", a.min_segment, "Runs needed on each side of a step")->capture_default_str();
  cmd->add_option("--permutations", a.permutations, "Reorderings in the permutation test")->capture_default_str();
}

}  // namespace

void add_history(CLI::App& app, int& exit_code) {
  auto* hist = app.add_subcommand("history", "Store result files in a history database and show metrics over time");
  hist->require_subcommand(1);
  hist->footer("Exit codes: 0 ok, 1 `check` found a new step in a metric's bad direction, 2 bad input.");

  auto add = std::make_shared<history_args>();
  auto* c_add = hist->add_subcommand("add", "Store result files (idempotent: a file already stored is skipped)");
  c_add->add_option("files", add->files, "Result JSON files")->required();
  c_add->add_option("--db", add->db, "History database (created if missing)")->capture_default_str();
  c_add->add_flag("--quiet", add->quiet, "Say nothing on success");
  c_add->callback([add, &exit_code] { exit_code = run_add(*add); });

  auto list = std::make_shared<history_args>();
  auto* c_list = hist->add_subcommand("list", "List the stored runs, oldest first");
  c_list->add_option("--db", list->db, "History database")->capture_default_str();
  c_list->add_option("--format", list->format, "Output format")
      ->check(CLI::IsMember({"table", "csv", "json"}))
      ->capture_default_str();
  c_list->callback([list, &exit_code] { exit_code = run_list(*list); });

  auto show = std::make_shared<history_args>();
  auto* c_show = hist->add_subcommand("show", "Each workload's metric over the runs, and where it stepped");
  c_show->add_option("--db", show->db, "History database")->capture_default_str();
  c_show->add_option("--format", show->format, "Output format")
      ->check(CLI::IsMember({"table", "markdown", "csv", "json", "html"}))
      ->capture_default_str();
  c_show->add_option("-o,--output", show->output, "Write to FILE instead of stdout");
  detection_options(c_show, *show);
  c_show->callback([show, &exit_code] { exit_code = run_show(*show); });

  auto check = std::make_shared<history_args>();
  auto* c_check = hist->add_subcommand("check", "Exit 1 when the newest run brought a new step for the worse");
  c_check->add_option("--db", check->db, "History database")->capture_default_str();
  c_check->add_flag("--quiet", check->quiet, "Say nothing when there is no new step");
  detection_options(c_check, *check);
  c_check->callback([check, &exit_code] { exit_code = run_check(*check); });
}

}  // namespace cudabench::cli
