// `cudabench run` (the default subcommand): load and filter a suite, run it, write the result
// file after every workload, print a summary. `--dry-run` prints the plan without touching the GPU.
#include <atomic>
#include <csignal>
#include <cstdio>
#include <ctime>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/suite_loading.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/registry.hpp"
#include "cudabench/run_summary.hpp"
#include "cudabench/runner.hpp"
#include "cudabench/suite.hpp"

namespace cudabench::cli {
namespace {

std::atomic<bool> g_stop{false};

extern "C" void on_sigint(int) {
  // First Ctrl-C: finish cleanly (the runner stops between phases and the file keeps what
  // finished). A second one gets the default action.
  g_stop = true;
  std::signal(SIGINT, SIG_DFL);
}

struct run_args {
  std::string suite = "quick";
  std::string filter;
  int reps = -1, warmup = -1;
  double min_time_ms = -1;
  std::string output;
  bool no_output = false;
  std::string format = "table";
  int device = 0;
  std::string label;
  bool dry_run = false, quiet = false, cold = false, strict = false;
  std::string mem_limit;
};

std::string default_output_path(const std::string& suite_name) {
  char stamp[32];
  const std::time_t t = std::time(nullptr);
  std::strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", std::gmtime(&t));
  return fmt::format("cudabench-{}-{}.json", suite_name, stamp);
}

int execute(const run_args& a) {
  const summary_format out_format = parse_summary_format(a.format);
  suite s = load_cli_suite(a.suite);
  s.workloads = filter_workloads(s, a.filter);

  runner_options o;
  o.settings = s.defaults;
  if (a.reps >= 0) o.settings.repetitions = a.reps;
  if (a.warmup >= 0) o.settings.warmup = a.warmup;
  if (a.min_time_ms >= 0) o.settings.min_time_ms = a.min_time_ms;
  o.device = a.device;
  o.label = a.label;
  o.cold = a.cold;
  o.quiet = a.quiet;
  o.argv = process_argv();
  if (!a.mem_limit.empty()) o.mem_limit = parse_byte_size(a.mem_limit, "--mem-limit");

  if (a.dry_run) {
    if (out_format == summary_format::json) {
      nlohmann::ordered_json j;
      j["suite"] = {{"name", s.name}, {"source", s.source}, {"sha256", s.sha256}};
      j["settings"] = {{"repetitions", o.settings.repetitions}, {"warmup", o.settings.warmup},
                       {"min_time_ms", o.settings.min_time_ms}};
      j["workloads"] = nlohmann::ordered_json::array();
      for (const auto& w : s.workloads) j["workloads"].push_back({{"id", w.id}, {"kind", w.kind}, {"params", w.params}});
      fmt::print("{}\n", j.dump(2));
      return 0;
    }
    fmt::print("suite {} ({}): {} workload{}, {} repetitions, {} warm-up, batches of at least {} ms{}\n", s.name,
               s.source, s.workloads.size(), s.workloads.size() == 1 ? "" : "s", o.settings.repetitions,
               o.settings.warmup, o.settings.min_time_ms, o.cold ? ", L2 flushed before each run" : "");
    for (std::size_t i = 0; i < s.workloads.size(); ++i) fmt::print("  [{}] {}\n", i + 1, s.workloads[i].id);
    return 0;
  }

  if (!a.no_output) o.output_path = a.output.empty() ? default_output_path(s.name) : a.output;
  std::signal(SIGINT, on_sigint);
  const result_file r = run_suite(s, o, g_stop);
  std::signal(SIGINT, SIG_DFL);
  fmt::print("{}", format_run_summary(r, out_format));
  if (!o.output_path.empty() && !a.quiet) fmt::print(stderr, "result file: {}\n", o.output_path);
  if (g_stop) return 130;
  if (a.strict)
    for (const auto& w : r.workloads)
      if (w.state == status::error || w.state == status::failed_validation) {
        fmt::print(stderr, "cudabench: --strict: {} ended with status {}\n", w.id, to_string(w.state));
        return 3;
      }
  return 0;
}

}  // namespace

void add_run(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<run_args>();
  CLI::App* run = app.add_subcommand("run", "Run a suite and write a result file (the default subcommand)");
  run->add_option("--suite", a->suite, "Suite name (configs/NAME.json) or path to a suite file")->capture_default_str();
  run->add_option("--filter", a->filter, "Glob(s) on workload ids, comma-separated (e.g. 'matmul/*fp16*')");
  run->add_option("--reps", a->reps, "Timed repetitions per workload (default: suite's, 5)")->check(CLI::Range(1, 1000));
  run->add_option("--warmup", a->warmup, "Warm-up runs before timing (default: suite's, 2)")->check(CLI::Range(0, 1000));
  run->add_option("--min-time-ms", a->min_time_ms, "Each repetition batches runs to last at least this long")
      ->check(CLI::Range(0.0, 1e6));
  run->add_option("-o,--output", a->output, "Result file (default: cudabench-SUITE-TIMESTAMP.json)");
  run->add_flag("--no-output", a->no_output, "Do not write a result file");
  run->add_option("--format", a->format, "stdout format: table, markdown, csv, json")->capture_default_str();
  run->add_option("--device", a->device, "CUDA device index")->capture_default_str();
  run->add_option("--label", a->label, "Label for comparisons (default: 'CUDA <runtime version>')");
  run->add_option("--mem-limit", a->mem_limit, "Cap cudabench's device allocations (e.g. 24GiB) to emulate a smaller card");
  run->add_flag("--cold", a->cold, "Flush L2 before every timed run");
  run->add_flag("--strict", a->strict, "Exit 3 if any workload errors or fails validation");
  run->add_flag("--dry-run", a->dry_run, "Expand the suite and print the plan; needs no GPU");
  run->add_flag("-q,--quiet", a->quiet, "No progress lines on stderr");
  run->footer("Examples:\n  cudabench --suite quick\n  cudabench --suite full --filter 'matmul/*' -o results/matmul.json\n"
              "  cudabench --suite full --mem-limit 24GiB --label 'H200 as 24GB'");
  run->callback([a, &exit_code] { exit_code = execute(*a); });
}

}  // namespace cudabench::cli
