// See run_devices.hpp.
#include "cli/run_devices.hpp"

#include <unistd.h>

#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.hpp"
#include "cli/devices.hpp"
#include "cli/gpu_batch.hpp"
#include "cli/round_driver.hpp"
#include "cudabench/build_commit.hpp"
#include "cudabench/build_config.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/fleet.hpp"
#include "cudabench/fleet_report.hpp"

namespace cudabench::cli {

int execute_devices(const run_args& a, const suite& s, summary_format out_format) {
  // With rounds, each GPU's process is this binary scheduling its rounds (which CUDABENCH_ROUND_COMMAND
  // may replace); without, it is the process that measures.
  if (a.output.size() > 5 && a.output.compare(a.output.size() - 5, 5, ".json") == 0)
    throw input_error(
        fmt::format("-o {}: with --devices, -o names a directory (one result per GPU and the fleet "
                    "summary go there)",
                    a.output));
  const std::vector<std::string> measuring = measuring_command();
  const std::vector<int> devices = resolve_devices(a.devices, measuring);
  const std::vector<std::string> per_gpu = a.rounds > 1 ? std::vector<std::string>{self_executable()} : measuring;
  const std::string host = a.host.empty() ? default_host_name() : a.host;
  const std::string dir =
      a.no_output
          ? (std::filesystem::temp_directory_path() / fmt::format("cudabench-devices-{}-{}", ::getpid(), utc_stamp()))
                .string()
      : a.output.empty() ? fmt::format("devices-{}-{}", s.name, utc_stamp())
                         : a.output;
  make_directories(dir);

  std::vector<gpu_job> jobs;
  for (int d : devices) {
    child_run_options co = child_options(a, s.source);
    co.device = d;
    co.rounds = a.rounds;
    co.strict = a.strict;
    co.quiet = false;  // progress goes to the GPU's log
    gpu_job j;
    j.device = d;
    j.output = fmt::format("{}/{}.json", dir, gpu_stem(host, d));
    j.log = fmt::format("{}/{}.log", dir, gpu_stem(host, d));
    std::filesystem::remove(j.output);
    j.argv = child_run_argv(per_gpu, co, j.output);
    jobs.push_back(std::move(j));
  }
  if (!a.quiet)
    fmt::print(stderr, "=== {} on {} GPU{} of {} at once ({}), one process each{}; logs in {}/\n", s.name,
               devices.size(), devices.size() == 1 ? "" : "s", host, fmt::join(devices, ", "),
               a.rounds > 1 ? fmt::format(", {} rounds each", a.rounds) : "", dir);
  const std::vector<child_result> results = run_gpu_jobs(jobs, a.quiet);

  std::vector<fleet_gpu> gpus;
  bool interrupted = false, strict_failed = false;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    gpus.push_back(gpu_entry(host, jobs[i], jobs[i].output, results[i]));
    interrupted = interrupted || results[i].interrupted;
    strict_failed = strict_failed || (a.strict && results[i].exit_code == 3 && gpus.back().result);
  }
  std::vector<std::string> missing;
  for (const auto& g : gpus)
    if (!g.result) missing.push_back(fmt::format("{}: {}", g.name(), g.note));
  if (missing.size() == gpus.size())
    throw runtime_failure(fmt::format("no GPU produced a result ({}); logs in {}/", fmt::join(missing, "; "), dir));

  fleet_file f = make_fleet(std::move(gpus), outlier_rule{}, a.label);
  f.tool = {
      {"name", "cudabench"}, {"version", CUDABENCH_VERSION}, {"git_commit", build_commit()}, {"argv", process_argv()}};
  const std::string fleet_path = fmt::format("{}/{}-fleet.json", dir, host);
  write_fleet_file(f, fleet_path);
  fmt::print("{}", format_fleet_summary(f, out_format));
  if (a.no_output) {
    std::filesystem::remove_all(dir);
  } else if (!a.quiet) {
    fmt::print(stderr, "fleet result: {} (per-GPU results {}/{}-gpu-N.json)\n", fleet_path, dir, host);
  }
  if (interrupted) return 130;
  if (!missing.empty()) {
    fmt::print(stderr, "cudabench: error: {} of {} GPUs produced no result: {}\n", missing.size(), jobs.size(),
               fmt::join(missing, "; "));
    return 3;
  }
  return strict_failed ? 3 : 0;
}

}  // namespace cudabench::cli
