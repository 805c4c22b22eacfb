// `cudabench ab BUILD_A BUILD_B [BUILD_C ...]`: an interleaved comparison of builds on one GPU.
// Rounds alternate the builds (A B, B A, A B, ... : for three, A B C, C B A, ...) so drift,
// temperature and power state fall on every build alike; every round is a fresh process. Each
// side's rounds are merged into DIR/A.json, DIR/B.json, ... (rewritten after every round, so
// nothing measured is lost), marked as one interleaved session, and compared (baseline A). A build
// is a cudabench executable, or a command such as "env LD_LIBRARY_PATH=/opt/cu121/lib build/cudabench".
// `--devices` runs this on several GPUs at once, one `ab` process per GPU (ab_devices.cpp).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/ab_devices.hpp"
#include "cli/ab_resume.hpp"
#include "cli/build_check.hpp"
#include "cli/commands.hpp"
#include "cli/round_budget.hpp"
#include "cli/round_driver.hpp"
#include "cli/run_args.hpp"
#include "cli/subprocess.hpp"
#include "cli/suite_loading.hpp"
#include "cli/verdict_args.hpp"
#include "cudabench/atomic_write.hpp"
#include "cudabench/compare.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/report.hpp"
#include "cudabench/text_safety.hpp"

namespace cudabench::cli {
namespace {

// Round r's order of the sides: forward on even rounds, backward on odd ones (ABBA...).
std::vector<std::size_t> order_of_round(int r, std::size_t n) {
  std::vector<std::size_t> o;
  for (std::size_t i = 0; i < n; ++i) o.push_back(r % 2 == 0 ? i : n - 1 - i);
  return o;
}

}  // namespace

std::string side_name(std::size_t i) { return std::string(1, static_cast<char>('A' + i)); }

std::string round_file(const std::string& dir, std::size_t side, int round) {
  return fmt::format("{}/rounds/{}-{}.json", dir, side_name(side), round);
}

std::string session_id() {
  std::random_device rd;
  return fmt::format("{}-{:08x}", utc_stamp(), rd());
}

std::vector<std::string> split_labels(const std::string& s) {
  std::vector<std::string> out;
  std::string cur;
  for (char ch : s) {
    if (ch == ',') {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += ch;
    }
  }
  out.push_back(cur);
  return out;
}

void write_text(const std::string& path, const std::string& text) { write_file_atomically(path, text); }

std::string report_text(const comparison& c, const std::string& format, bool color) {
  report_options ro;
  ro.color = color;
  std::ostringstream s;
  make_reporter(format, ro)->report(c, s);
  return s.str();
}

namespace {

int run_ab(const ab_args& a) {
  const auto started = std::chrono::steady_clock::now();  // what --time-limit counts from
  const std::size_t n = a.sides.size();
  if (n < 2) throw input_error(fmt::format("ab needs at least two builds to compare (got {})", n));
  if (n > 26) throw input_error(fmt::format("ab compares at most 26 builds (got {})", n));
  check_run_args(a.run);
  if (a.run.rounds < 1) throw input_error("--rounds must be at least 1");
  check_verdict_args(a.alpha, a.threshold, a.power);
  std::vector<std::string> labels(n);
  if (!a.labels.empty()) {
    labels = split_labels(a.labels);
    if (labels.size() != n)
      throw input_error(
          fmt::format("--labels has {} label{} for {} builds", labels.size(), labels.size() == 1 ? "" : "s", n));
    for (const auto& l : labels)
      if (!valid_utf8(l)) throw input_error(fmt::format("--labels \"{}\": not valid UTF-8", terminal_text(l)));
  }
  std::vector<std::vector<std::string>> commands;
  for (const auto& s : a.sides) {
    commands.push_back(split_command(s));
    check_build_command(s, commands.back());  // every build, before round 1 and before any directory
  }
  suite s = load_cli_suite(a.run.suite, a.run.max_workloads);
  (void)filter_workloads(s, a.run.filter);  // a filter that matches nothing is an error before anything runs
  if (a.resume && a.output_dir.empty())
    throw input_error("--resume continues the ab in an output directory: give it with -o DIR");
  if (a.resume && !a.run.devices.empty()) throw input_error("--resume runs on one GPU; it does not take --devices");
  if (a.time_limit_s > 0 && !a.run.devices.empty())  // a GPU stopped at the limit could not be resumed
    throw input_error("--time-limit runs on one GPU, as --resume does; it does not take --devices");
  if (!a.run.devices.empty()) return run_ab_devices(a, s, labels);

  const std::string dir =
      a.output_dir.empty() ? fmt::format("ab-{}-{}", file_name_component(s.name), utc_stamp()) : a.output_dir;
  // What makes a later --resume the same experiment: every option a round's process measures with.
  const nlohmann::ordered_json manifest = ab_manifest(a.sides, s.name, s.sha256,
                                                      {{"filter", a.run.filter},
                                                       {"reps", a.run.reps},
                                                       {"warmup", a.run.warmup},
                                                       {"min_time_ms", a.run.min_time_ms},
                                                       {"warmup_ms", a.run.warmup_ms},
                                                       {"device", a.run.device},
                                                       {"mem_limit", a.run.mem_limit},
                                                       {"cold", a.run.cold},
                                                       {"hold_tuning", a.hold_tuning}});
  ab_resume_state resumed;
  if (a.resume) resumed = read_ab_resume_state(dir, manifest);
  // A fresh ab over an earlier one would replace its merged sides and leave its later rounds'
  // files behind, mixing two sessions in one directory: the measured rounds are kept instead.
  std::error_code ec;
  if (!a.resume && std::filesystem::exists(dir + "/ab.json", ec))
    throw input_error(
        fmt::format("-o {}: already holds an ab ({}/ab.json); --resume continues it, or name a new "
                    "directory (or remove this one) to start over",
                    terminal_text(dir), terminal_text(dir)));
  make_directories(dir + "/rounds");
  write_text(dir + "/ab.json", manifest.dump(1) + "\n");
  const std::string session = a.resume ? resumed.session : session_id();
  std::string schedule;
  for (int r = 0; r < a.run.rounds; ++r)
    for (std::size_t i : order_of_round(r, n)) schedule += static_cast<char>('A' + i);
  nlohmann::ordered_json side_list = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < n; ++i) side_list.push_back({{"side", side_name(i)}, {"command", a.sides[i]}});

  std::vector<side_rounds> sides(n);
  std::string held;  // --hold-tuning: the first round's file, replayed by every later run
  bool interrupted = false, out_of_time = false;
  round_budget budget(a.time_limit_s, n);
  int run_no = 0, rounds_done = std::min(resumed.done_rounds, a.run.rounds);
  auto write_side = [&](std::size_t i) {  // the side's merged file, rewritten after every round
    if (!sides[i].any_result()) return;
    const std::string side = side_name(i);
    result_file merged = sides[i].merged();
    merged.interleave = {{"session", session}, {"side", side}, {"sides", side_list}, {"schedule", schedule}};
    write_result_file(merged, fmt::format("{}/{}.json", dir, side));
  };
  // --resume: the finished rounds' files join the sides as they are; the rounds after them run.
  for (int r = 0; r < rounds_done; ++r) {
    for (std::size_t i : order_of_round(r, n)) {
      const std::string file = round_file(dir, i, r + 1);
      sides[i].add(file, child_result{});
      if (a.hold_tuning && held.empty() && sides[i].last().has_result) held = file;
      ++run_no;
    }
  }
  if (a.resume)
    for (std::size_t i = 0; i < n; ++i) write_side(i);  // from the kept rounds alone: a cut-short round is dropped
  if (a.resume && !a.run.quiet)
    fmt::print(stderr, "ab: resuming {}: {} of {} rounds already done\n", terminal_text(dir), rounds_done,
               a.run.rounds);
  for (int r = rounds_done; r < a.run.rounds && !interrupted; ++r) {
    // A round the time limit cannot hold is not started: cut inside, its finished runs would be
    // dropped by --resume anyway (a round is both sides or nothing).
    if (!budget.next_round_fits(seconds_since(started))) {
      out_of_time = true;
      break;
    }
    for (std::size_t i : order_of_round(r, n)) {
      const std::string side = side_name(i);
      ++run_no;
      if (!a.run.quiet)
        fmt::print(stderr, "=== ab run {}/{} (round {}, side {}{}): {}\n", run_no, schedule.size(), r + 1, side,
                   labels[i].empty() ? "" : " \"" + terminal_text(labels[i]) + "\"", terminal_text(a.sides[i]));
      child_run_options co = child_options(a.run, s.source);
      co.label = labels[i];
      if (a.hold_tuning && !held.empty()) co.tuning_from = held;
      const std::string file = round_file(dir, i, r + 1);
      std::filesystem::remove(file);
      const auto run_started = std::chrono::steady_clock::now();
      const child_result cr = run_child(child_run_argv(commands[i], co, file), true);
      budget.ran(i, seconds_since(run_started));
      sides[i].add(file, cr);
      if (a.hold_tuning && held.empty() && sides[i].last().has_result) held = file;
      write_side(i);
      if (cr.interrupted) {
        interrupted = true;
        break;
      }
    }
    if (!interrupted) rounds_done = r + 1;
  }
  if (out_of_time)
    fmt::print(
        stderr,
        "ab: stopped at the time limit ({:g} s): {} of {} rounds done, and the next is expected to take {:.1f} s "
        "with {:.1f} s left; what finished is compared; --resume -o {} continues\n",
        budget.limit_s(), rounds_done, a.run.rounds, budget.expected_round_s(),
        std::max(0.0, budget.limit_s() - seconds_since(started)), terminal_text(dir));

  std::vector<std::string> missing;
  for (std::size_t i = 0; i < n; ++i)
    if (!sides[i].any_result())
      missing.push_back(fmt::format("{} ({}): {}", static_cast<char>('A' + i), a.sides[i],
                                    sides[i].size() ? sides[i].last().note : "never ran"));
  if (!missing.empty())
    throw runtime_failure(missing.size() == n
                              ? fmt::format("no build produced a result: {}; the round logs are in {}/rounds",
                                            fmt::join(missing, "; "), dir)
                              : fmt::format("no result from build{} {}; results of the others are in {}",
                                            missing.size() == 1 ? "" : "s", fmt::join(missing, "; "), dir));

  std::vector<result_file> files;
  std::vector<std::string> sources;
  for (std::size_t i = 0; i < n; ++i) {
    sources.push_back(fmt::format("{}/{}.json", dir, static_cast<char>('A' + i)));
    files.push_back(read_result_file(sources.back()));
  }
  compare_options opt;
  opt.alpha = a.alpha;
  opt.threshold_pct = a.threshold;
  opt.power = a.power;
  const comparison cmp = compare_results(files, sources, opt);
  write_text(dir + "/compare.md", report_text(cmp, "markdown", false));
  write_text(dir + "/compare.json", report_text(cmp, "json", false));
  const char* no_color = std::getenv("NO_COLOR");
  std::cout << report_text(cmp, a.format, a.format == "table" && isatty(fileno(stdout)) && !(no_color && *no_color));
  std::cout.flush();
  if (!a.run.quiet)
    fmt::print(stderr, "ab: results in {}/ (A.json ... , compare.md, compare.json; rounds/ per run)\n",
               terminal_text(dir));
  if (interrupted || out_of_time) return 130;
  return a.fail_on_regression && cmp.any_regression() ? 1 : 0;
}

}  // namespace

void add_ab(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<ab_args>();
  a->run.rounds = 5;
  auto* cmd =
      app.add_subcommand("ab", "Interleaved A/B of builds on one GPU: rounds alternate A B B A ..., then compare");
  cmd->add_option("builds", a->sides,
                  "Builds to compare, baseline first: cudabench executables, or commands such as "
                  "\"env LD_LIBRARY_PATH=/opt/cu121/lib build/cudabench\"")
      ->required();
  add_run_options(*cmd, a->run);
  cmd->add_option("--rounds", a->run.rounds, "Rounds per build (each a fresh process)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  cmd->add_option("--labels", a->labels,
                  "Comma-separated labels, one per build (default: each build's 'CUDA <runtime>')");
  cmd->add_option("-o,--output-dir", a->output_dir, "Directory for the results (default: ab-SUITE-TIMESTAMP)");
  cmd->add_flag("--hold-tuning", a->hold_tuning,
                "Replay the first run's tuning choices (cuBLASLt algorithms, LLM variants) in every later run, "
                "so only the builds differ");
  cmd->add_flag("--resume", a->resume,
                "Continue the ab in -o DIR where an earlier one stopped: its finished rounds are kept, the rest run "
                "(same builds, suite, filter and measurement options, as DIR/ab.json records them; --rounds may ask "
                "for more)");
  cmd->add_option("--time-limit", a->time_limit_s,
                  "Seconds this ab may take: no round is started that is not expected to end within them (a round "
                  "takes each build's longest run so far); the finished rounds are compared and kept, exit 130, "
                  "and --resume continues (for jobs in a fixed slot)")
      ->check(CLI::Range(1e-3, 1e9));
  cmd->add_option("--format", a->format, "stdout format of the comparison")
      ->check(CLI::IsMember({"table", "markdown", "csv", "json"}))
      ->capture_default_str();
  cmd->add_option("--alpha", a->alpha, "Family-wise significance level (Holm over the rows)")->capture_default_str();
  cmd->add_option("--threshold", a->threshold, "Changes below this many percent are `unchanged`")
      ->capture_default_str();
  cmd->add_option("--power", a->power,
                  "Power of each row's minimum detectable change (mde): the smallest change found this often")
      ->capture_default_str();
  cmd->add_flag("--fail-on-regression", a->fail_on_regression, "Exit 1 when a build regressed against the first");
  cmd->footer(
      "Examples:\n"
      "  cudabench ab build-cuda-12.1/cudabench build-cuda-12.4/cudabench --suite full --rounds 5\n"
      "  cudabench ab build/cudabench \"env LD_LIBRARY_PATH=/opt/cublas-12.1/lib build/cudabench\" --suite quick\n"
      "  cudabench ab old/cudabench new/cudabench --suite full --devices all   (every GPU at once)\n"
      "  cudabench ab old/cudabench new/cudabench --suite full -o ab1 --time-limit 540   (then --resume -o ab1)\n"
      "Exit codes: 0 no regression, 1 regression with --fail-on-regression, 2 bad input, 3 a build produced no\n"
      "result, 130 interrupted or stopped by --time-limit (what finished is kept; --resume continues).");
  cmd->callback([a, &exit_code] { exit_code = run_ab(*a); });
}

}  // namespace cudabench::cli
