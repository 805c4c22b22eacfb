// `cudabench run` (the default subcommand): load and filter a suite, run it, write the result
// file after every workload, print a summary. `--dry-run` prints the plan without touching the GPU.
// `--rounds N` runs the suite N times, each round in a fresh process; `--devices` runs it on
// several GPUs at once (run_devices.cpp); `--time-limit` ends the rounds early rather than have a
// fixed slot kill one midway.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/devices.hpp"
#include "cli/round_budget.hpp"
#include "cli/round_driver.hpp"
#include "cli/run_args.hpp"
#include "cli/run_devices.hpp"
#include "cli/run_progress.hpp"
#include "cli/suite_loading.hpp"
#include "cudabench/atomic_write.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/gpu/registry.hpp"
#include "cudabench/gpu/runner.hpp"
#include "cudabench/id_filter.hpp"
#include "cudabench/pick_fastest.hpp"
#include "cudabench/run_summary.hpp"
#include "cudabench/suite.hpp"
#include "cudabench/text_safety.hpp"
#include "cudabench/tuner_measure.hpp"

namespace cudabench::cli {
namespace {

std::atomic<bool> g_stop{false};

extern "C" void on_sigint(int) {
  // First Ctrl-C: finish cleanly (the runner stops between phases and the file keeps what
  // finished). A second one gets the default action.
  g_stop = true;
  std::signal(SIGINT, SIG_DFL);
}

// Workload id -> recorded tuning, from a result file (`--tuning-from`).
std::map<std::string, nlohmann::ordered_json> tuning_of(const std::string& path) {
  const result_file f = read_result_file(path);
  std::map<std::string, nlohmann::ordered_json> out;
  for (const auto& w : f.workloads)
    if (!w.tuning.empty()) out[w.id] = w.tuning;
  return out;
}

int strict_exit(const result_file& r) {
  for (const auto& w : r.workloads)
    if (w.state == status::error || w.state == status::failed_validation) {
      fmt::print(stderr, "cudabench: --strict: {} ended with status {}\n", terminal_text(w.id), to_string(w.state));
      return 3;
    }
  return 0;
}

// What a dry run checks besides the suite: which workloads --filter dropped, and whether the
// result file could be written (a typo in -o's directory should not wait for the first save).
struct plan_checks {
  std::vector<std::string> removed;  // ids --filter dropped, in suite order
  std::string output;                // the result file a run would write; "" with --no-output
  bool output_exists = false;        // a file is there already: the run replaces it (said, not refused)
  std::string output_dir;            // --devices: the directory the run would make (files per GPU)
  std::optional<std::string> output_problem;
};

// Exit 2 (after the plan is printed) when the result file could not be written, as the run would.
int print_plan(const suite& s, const runner_options& o, const run_args& a, summary_format out_format,
               const plan_checks& c) {
  if (out_format == summary_format::json) {
    nlohmann::ordered_json j;
    j["suite"] = suite_identity_json(s);
    j["settings"] = to_json(o.settings);
    j["settings"]["rounds"] = a.rounds;
    if (!a.devices.empty()) j["settings"]["devices"] = describe_devices(a.devices, measuring_command());
    if (!a.filter.empty()) j["filter"] = {{"pattern", a.filter}, {"kept", s.workloads.size()}, {"removed", c.removed}};
    j["output"] = {{"path", c.output.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(c.output)},
                   {"writable", c.output.empty() || !c.output_problem}};
    if (!c.output.empty()) j["output"]["exists"] = c.output_exists;
    if (!c.output_dir.empty()) j["output"] = {{"directory", c.output_dir}, {"writable", true}};
    if (c.output_problem) j["output"]["problem"] = *c.output_problem;
    j["workloads"] = to_json(s.workloads);
    fmt::print("{}\n", json_text_safe(j.dump(2)));
  } else {
    fmt::print("suite {} ({}): {} workload{}, {} repetitions, {} warm-up, batches of at least {} ms{}{}{}\n",
               terminal_text(s.name), terminal_text(s.source), s.workloads.size(), s.workloads.size() == 1 ? "" : "s",
               o.settings.repetitions, o.settings.warmup, o.settings.min_time_ms,
               o.cold ? ", L2 flushed before each run" : "",
               a.rounds > 1 ? fmt::format(", {} rounds in fresh processes", a.rounds) : "",
               a.devices.empty() ? "" : ", " + describe_devices(a.devices, measuring_command()));
    if (!a.filter.empty()) {
      constexpr std::size_t shown = 10;
      std::string list;
      for (std::size_t i = 0; i < c.removed.size() && i < shown; ++i)
        list += (i ? ", " : "") + terminal_text(c.removed[i]);
      if (c.removed.size() > shown) list += fmt::format(", and {} more", c.removed.size() - shown);
      fmt::print("filter \"{}\" keeps {} of {} workloads{}\n", terminal_text(a.filter), s.workloads.size(),
                 s.workloads.size() + c.removed.size(), c.removed.empty() ? "" : "; removed: " + list);
    }
    if (!c.output_dir.empty())
      fmt::print("result directory: {}/ (one result file per GPU and the fleet summary, made by the run)\n",
                 terminal_text(c.output_dir));
    else if (c.output.empty()) fmt::print("result file: none (--no-output)\n");
    else
      fmt::print("result file: {} ({})\n", terminal_text(c.output),
                 c.output_problem  ? "cannot be written: " + *c.output_problem
                 : c.output_exists ? "writable; the run replaces the file there"
                                   : "writable");
    for (std::size_t i = 0; i < s.workloads.size(); ++i)
      fmt::print("  [{}] {}\n", i + 1, terminal_text(s.workloads[i].id));
  }
  if (c.output_problem) {
    std::fflush(stdout);
    throw input_error(fmt::format("-o {}: cannot be written: {}", c.output, *c.output_problem));
  }
  return 0;
}

// Several rounds: this process only schedules; each round is `cudabench run` in a fresh process
// writing its own file under OUTPUT.rounds/, merged into OUTPUT after every round.
int execute_rounds(const run_args& a, const suite& s, summary_format out_format) {
  const std::string output = a.no_output ? "" : a.output.empty() ? default_run_output(s.name) : a.output;
  std::string dir;
  if (!output.empty()) {
    dir = output + ".rounds";
  } else {
    dir = (std::filesystem::temp_directory_path() / fmt::format("cudabench-rounds-{}-{}", ::getpid(), utc_stamp()))
              .string();
  }
  // A first round that cannot start leaves nothing to keep: a folder made for it is removed again,
  // so a failed nightly leaves no empty X.json.rounds/ behind.
  const bool made_dir = !std::filesystem::exists(dir);
  make_directories(dir);
  child_run_options co = child_options(a, s.source);
  // CUDABENCH_ROUND_COMMAND replaces this executable for the rounds (the CPU tests run rounds
  // through a fake cudabench; a user can wrap rounds in e.g. `numactl --cpunodebind=0 cudabench`).
  const char* override_cmd = std::getenv("CUDABENCH_ROUND_COMMAND");
  const std::vector<std::string> self =
      override_cmd && *override_cmd ? split_command(override_cmd) : std::vector<std::string>{self_executable()};
  side_rounds side;
  bool interrupted = false;
  round_budget budget(a.time_limit_s, 1);
  const auto started = std::chrono::steady_clock::now();
  for (int r = 0; r < a.rounds && !interrupted; ++r) {
    // The first round always runs (nothing to expect from yet); a later one only when it is
    // expected to end within the limit. The file then holds the rounds that ran (its "rounds").
    if (r > 0 && !budget.next_round_fits(seconds_since(started))) {
      fmt::print(stderr,
                 "run: stopped at the time limit ({:g} s): {} of {} rounds done, and the next is expected to take "
                 "{:.1f} s with {:.1f} s left; {} holds the finished rounds\n",
                 budget.limit_s(), r, a.rounds, budget.expected_round_s(),
                 std::max(0.0, budget.limit_s() - seconds_since(started)),
                 output.empty() ? std::string("the summary") : terminal_text(output));
      const result_file merged = side.merged();
      fmt::print("{}", format_run_summary(merged, out_format));
      if (output.empty()) std::filesystem::remove_all(dir);
      return a.strict ? strict_exit(merged) : 0;
    }
    if (!a.quiet) fmt::print(stderr, "=== round {}/{} (fresh process)\n", r + 1, a.rounds);
    const std::string file = fmt::format("{}/round-{}.json", dir, r + 1);
    std::filesystem::remove(file);
    const auto round_started = std::chrono::steady_clock::now();
    const child_result cr = run_child(child_run_argv(self, co, file), true);
    budget.ran(0, seconds_since(round_started));
    side.add(file, cr);
    interrupted = cr.interrupted;
    if (!side.any_result()) {
      // The first round could not even start (no GPU, bad driver): more rounds would fail alike.
      std::error_code ec;
      if (made_dir) std::filesystem::remove_all(dir, ec);
      throw runtime_failure(
          fmt::format("round 1 of {} ended with exit code {} and no result file; see the "
                      "messages above",
                      a.rounds, cr.exit_code));
    }
    result_file merged = side.merged();
    if (!output.empty()) write_result_file(merged, output);
    if (r + 1 == a.rounds || interrupted) {
      fmt::print("{}", format_run_summary(merged, out_format));
      if (!output.empty() && !a.quiet)
        fmt::print(stderr, "result file: {} (rounds in {})\n", terminal_text(output), terminal_text(dir));
      if (output.empty()) std::filesystem::remove_all(dir);
      if (interrupted) return 130;
      return a.strict ? strict_exit(merged) : 0;
    }
  }
  return 0;
}

int execute(const run_args& a) {
  const summary_format out_format = parse_summary_format(a.format);
  check_run_args(a);
  // The tuners read CUDABENCH_TUNER_TIE_MARGIN and CUDABENCH_TUNER_MEASURE_MS in setup: a bad value
  // is exit 2 here, before any workload runs (in a dry run too), not an error in every tuned workload.
  (void)tuner_tie_margin();
  (void)tuner_measure_ms();
  suite s = load_cli_suite(a.suite, a.max_workloads);
  plan_checks checks;
  for (const auto& w : s.workloads)
    if (!id_matches(w.id, a.filter)) checks.removed.push_back(w.id);
  s.workloads = filter_workloads(s, a.filter);

  runner_options o = runner_options_of(a, s);
  // The files this run reads: its result file may be neither (-o configs/quick.json would replace
  // the suite with a result). --tuning-from is read now, so a missing or bad file is exit 2 before
  // anything runs, in a dry run too.
  std::vector<std::string> inputs{s.source};
  if (!a.tuning_from.empty()) {
    o.tuning_from = tuning_of(a.tuning_from);
    o.tuning_from_source = a.tuning_from;
    inputs.push_back(a.tuning_from);
  }
  const std::string output = a.no_output ? "" : a.output.empty() ? default_run_output(s.name) : a.output;
  if (a.dry_run) {
    checks.output = a.devices.empty() ? output : "";  // --devices: -o is a directory, made by the run
    if (!a.devices.empty() && !a.no_output)
      checks.output_dir = a.output.empty() ? "devices-" + s.name + "-<UTC time>" : a.output;
    if (!checks.output.empty()) checks.output_problem = output_problem(checks.output, inputs);
    std::error_code ec;
    checks.output_exists = !checks.output.empty() && std::filesystem::exists(checks.output, ec);
    return print_plan(s, o, a, out_format, checks);
  }
  if (a.devices.empty() && !output.empty()) check_output_path(output, inputs);
  if (!a.devices.empty()) return execute_devices(a, s, out_format);
  if (a.rounds > 1) return execute_rounds(a, s, out_format);

  o.output_path = output;
  std::signal(SIGINT, on_sigint);
  progress_printer progress(o.output_path);
  const result_file r = run_suite(s, find_factory, o, g_stop, a.quiet ? nullptr : &progress);
  std::signal(SIGINT, SIG_DFL);
  fmt::print("{}", format_run_summary(r, out_format));
  if (!o.output_path.empty() && !a.quiet) fmt::print(stderr, "result file: {}\n", terminal_text(o.output_path));
  if (g_stop) return 130;
  return a.strict ? strict_exit(r) : 0;
}

}  // namespace

void add_run(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<run_args>();
  CLI::App* run = app.add_subcommand("run", "Run a suite and write a result file (the default subcommand)");
  add_run_options(*run, *a);
  run->add_option("-o,--output", a->output, "Result file (default: cudabench-SUITE-TIMESTAMP.json)");
  run->add_flag("--no-output", a->no_output, "Do not write a result file");
  run->add_option("--format", a->format, "stdout format: table, markdown, csv, json")->capture_default_str();
  run->add_option("--label", a->label, "Label for comparisons (default: 'CUDA <runtime version>')");
  run->add_option("--rounds", a->rounds,
                  "Run the suite this many times, each round in a fresh process, into one result file "
                  "(compare judges between-round noise; 5 for a trustworthy verdict)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  run->add_option("--time-limit", a->time_limit_s,
                  "Seconds the rounds may take: no round after the first is started that is not expected to end "
                  "within them (a round takes the longest one so far); the result file holds the rounds that ran "
                  "(for jobs in a fixed slot)")
      ->check(CLI::Range(1e-3, 1e9));
  run->add_option("--tuning-from", a->tuning_from,
                  "Replay the setup-time tuning choices recorded in this result file instead of tuning");
  run->add_flag("--strict", a->strict, "Exit 3 if any workload errors or fails validation");
  run->add_flag("--dry-run", a->dry_run, "Expand the suite and print the plan; needs no GPU");
  run->footer(
      "Examples:\n  cudabench --suite quick\n  cudabench --suite full --rounds 5 -o results/cu130.json\n"
      "  cudabench --suite full --rounds 5 --time-limit 1800 -o nightly.json   (fewer rounds if they do not fit)\n"
      "  cudabench --suite full --devices all -o results/node01   (every GPU at once, outlier GPUs flagged)\n"
      "  cudabench --suite full --filter 'matmul/*' -o results/matmul.json\n"
      "  cudabench --suite full --mem-limit 24GiB --label 'H200 as 24GB'\n"
      "Exit codes: 0 ok, 2 bad input, 3 no usable GPU or driver (or a failure under --strict),\n"
      "130 interrupted by Ctrl-C (the result file keeps every workload that finished).");
  run->callback([a, &exit_code] { exit_code = execute(*a); });
}

}  // namespace cudabench::cli
