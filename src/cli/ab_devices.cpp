// See ab_devices.hpp.
#include "cli/ab_devices.hpp"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iostream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/devices.hpp"
#include "cli/gpu_batch.hpp"
#include "cli/round_driver.hpp"
#include "cli/subprocess.hpp"
#include "cudabench/build_commit.hpp"
#include "cudabench/build_config.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/fleet.hpp"
#include "cudabench/fleet_compare.hpp"

namespace cudabench::cli {
namespace {

std::vector<std::string> ab_child_argv(const ab_args& a, const suite& s, int device, const std::string& out_dir) {
  std::vector<std::string> argv{self_executable(), "ab"};
  argv.insert(argv.end(), a.sides.begin(), a.sides.end());
  child_run_options co = child_options(a.run, s.source);
  co.device = device;
  co.quiet = false;  // progress goes to the GPU's log
  append_run_options(argv, co);
  argv.insert(argv.end(), {"-o", out_dir, "--rounds", std::to_string(a.run.rounds), "--format", "json", "--alpha",
                           fmt::format("{}", a.alpha), "--threshold", fmt::format("{}", a.threshold), "--power",
                           fmt::format("{}", a.power)});
  if (!a.labels.empty()) argv.insert(argv.end(), {"--labels", a.labels});
  if (a.hold_tuning) argv.push_back("--hold-tuning");
  if (a.fail_on_regression) argv.push_back("--fail-on-regression");
  return argv;
}

// "2 improved, 1 regressed, 30 unchanged, 0 inconclusive" from a GPU's compare.json, per candidate.
std::string verdict_counts(const std::string& compare_json) {
  std::ifstream in(compare_json);
  if (!in) return "no comparison";
  try {
    const auto j = nlohmann::json::parse(in);
    std::vector<std::string> parts;
    for (const auto& c : j.at("summary"))
      parts.push_back(fmt::format("{} improved, {} regressed, {} unchanged, {} inconclusive", c.value("improved", 0),
                                  c.value("regressed", 0), c.value("unchanged", 0), c.value("inconclusive", 0)));
    return fmt::format("{}", fmt::join(parts, " | "));
  } catch (const std::exception&) {
    return "unreadable comparison";
  }
}

}  // namespace

int run_ab_devices(const ab_args& a, const suite& s, const std::vector<std::string>& labels) {
  // `all` is counted by build A (a cudabench), or by NVML without any CUDA in this process.
  const std::vector<int> devices = resolve_devices(a.run.devices, split_command(a.sides.front()));
  const std::string host = a.run.host.empty() ? default_host_name() : a.run.host;
  const std::string dir = a.output_dir.empty() ? fmt::format("ab-{}-{}", s.name, utc_stamp()) : a.output_dir;
  make_directories(dir);
  const std::size_t n = a.sides.size();

  std::vector<gpu_job> jobs;
  for (int d : devices) {
    gpu_job j;
    j.device = d;
    j.output = fmt::format("{}/{}", dir, gpu_stem(host, d));
    j.log = j.output + ".log";
    j.argv = ab_child_argv(a, s, d, j.output);
    jobs.push_back(std::move(j));
  }
  if (!a.run.quiet)
    fmt::print(stderr, "=== ab of {} builds on {} GPU{} of {} at once ({}), {} rounds each; logs in {}/\n", n,
               devices.size(), devices.size() == 1 ? "" : "s", host, fmt::join(devices, ", "), a.run.rounds, dir);
  const std::vector<child_result> results = run_gpu_jobs(jobs, a.run.quiet, 1);  // 1: that GPU found a regression

  bool interrupted = false, any_regressed = false;
  std::vector<std::string> failed;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    interrupted = interrupted || results[i].interrupted;
    any_regressed = any_regressed || results[i].exit_code == 1;
    if (results[i].exit_code != 0 && results[i].exit_code != 1 && !results[i].interrupted)
      failed.push_back(
          fmt::format("GPU {}: exit code {} ({})", jobs[i].device, results[i].exit_code, last_log_line(jobs[i].log)));
  }

  // One fleet per build, all marked as one session, then their comparison.
  const std::string session = session_id();
  std::vector<result_file> files;
  std::vector<std::string> sources;
  for (std::size_t side = 0; side < n; ++side) {
    std::vector<fleet_gpu> gpus;
    for (std::size_t i = 0; i < jobs.size(); ++i)
      gpus.push_back(gpu_entry(host, jobs[i], fmt::format("{}/{}.json", jobs[i].output, side_name(side)), results[i]));
    fleet_file f;
    try {
      f = make_fleet(std::move(gpus), outlier_rule{}, labels[side]);
    } catch (const input_error& e) {
      throw runtime_failure(fmt::format("no result from build {} ({}) on any GPU: {}; logs in {}/", side_name(side),
                                        a.sides[side], e.what(), dir));
    }
    f.tool = {{"name", "cudabench"}, {"version", CUDABENCH_VERSION}, {"git_commit", build_commit()}};
    f.interleave = {{"session", session}, {"side", side_name(side)}};
    sources.push_back(fmt::format("{}/{}-fleet-{}.json", dir, host, side_name(side)));
    write_fleet_file(f, sources.back());
    for (const auto& o : f.outlier_gpus) fmt::print(stderr, "build {}: outlier {}\n", side_name(side), o.line);
    files.push_back(fleet_as_result(f));
  }
  compare_options opt;
  opt.alpha = a.alpha;
  opt.threshold_pct = a.threshold;
  opt.power = a.power;
  const comparison cmp = compare_results(files, sources, opt);
  write_text(dir + "/compare.md", report_text(cmp, "markdown", false));
  write_text(dir + "/compare.json", report_text(cmp, "json", false));

  for (const auto& j : jobs)
    fmt::print(stderr, "GPU {}: {} ({}/compare.md)\n", j.device, verdict_counts(j.output + "/compare.json"), j.output);
  const char* no_color = std::getenv("NO_COLOR");
  std::cout << report_text(cmp, a.format, a.format == "table" && isatty(fileno(stdout)) && !(no_color && *no_color));
  std::cout.flush();
  if (!a.run.quiet)
    fmt::print(stderr,
               "ab: per-GPU results in {}/{}-gpu-N/, fleets {}/{}-fleet-A.json ..., their comparison {}/compare.md\n",
               dir, host, dir, host, dir);
  if (interrupted) return 130;
  if (!failed.empty()) {
    fmt::print(stderr, "cudabench: error: {} of {} GPUs produced no comparison: {}\n", failed.size(), jobs.size(),
               fmt::join(failed, "; "));
    return 3;
  }
  return a.fail_on_regression && (any_regressed || cmp.any_regression()) ? 1 : 0;
}

}  // namespace cudabench::cli
