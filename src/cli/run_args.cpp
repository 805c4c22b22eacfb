// See run_args.hpp.
#include "cli/run_args.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/devices.hpp"
#include "cli/suite_loading.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/text_safety.hpp"

namespace cudabench::cli {

void add_run_options(CLI::App& cmd, run_args& a) {
  cmd.add_option("--suite", a.suite, "Suite name (configs/NAME.json) or path to a suite file")->capture_default_str();
  cmd.add_option("--filter", a.filter, "Glob(s) on workload ids, comma-separated (e.g. 'matmul/*fp16*')");
  cmd.add_option("--reps", a.reps, "Timed repetitions per workload (default: suite's, 5)")->check(CLI::Range(1, 1000));
  cmd.add_option("--warmup", a.warmup, "Warm-up runs before timing (default: suite's, 2)")->check(CLI::Range(0, 1000));
  cmd.add_option("--warmup-ms", a.warmup_ms,
                 "Keep warming up until this much GPU time has passed, so clocks have left idle (default 100)")
      ->check(CLI::Range(0.0, 1e6));
  cmd.add_option("--min-time-ms", a.min_time_ms, "Each repetition batches runs to last at least this long")
      ->check(CLI::Range(0.0, 1e6));
  auto* device = cmd.add_option("--device", a.device, "CUDA device index")->capture_default_str();
  cmd.add_option("--devices", a.devices,
                 "Run on several GPUs at once, one process each: all, or indices such as 0,2,5 or 0-3 "
                 "(one result per GPU plus a fleet summary with outlier GPUs; docs/fleet.md)")
      ->excludes(device)
      // An empty value (--devices "$GPUS" with GPUS unset) would otherwise run on one GPU unnoticed.
      ->check(CLI::Validator([](std::string& v) { return v.empty() ? std::string("an empty list of GPUs") : ""; }, ""));
  cmd.add_option("--host", a.host,
                 "With --devices: this host's name in file names and the fleet table (default: the host name)");
  cmd.add_option("--mem-limit", a.mem_limit,
                 "Cap cudabench's device allocations (e.g. 24GiB) to emulate a smaller card");
  cmd.add_flag("--cold", a.cold, "Flush L2 before every timed run");
  cmd.add_flag("-q,--quiet", a.quiet, "No progress lines on stderr");
  add_max_workloads_option(cmd, a.max_workloads);
}

void check_run_args(const run_args& a) {
  if (a.device < 0) throw input_error(fmt::format("--device {}: a CUDA device index is 0 or more", a.device));
  if (std::isnan(a.min_time_ms)) throw input_error("--min-time-ms nan: expected a number of milliseconds");
  if (std::isnan(a.warmup_ms)) throw input_error("--warmup-ms nan: expected a number of milliseconds");
  if (a.no_output && !a.output.empty()) throw input_error("--no-output and -o/--output contradict each other");
  if (a.rounds > 1 && !a.tuning_from.empty() && a.tuning_from == a.output)
    throw input_error("--tuning-from and -o/--output name the same file");
  if (!a.mem_limit.empty()) (void)parse_byte_size(a.mem_limit, "--mem-limit");
  if (!a.devices.empty()) (void)parse_device_list(a.devices);
  // Each GPU's process of a --devices run schedules its own rounds; a limit there would end them at
  // different rounds, and the fleet table wants the same rounds from every GPU.
  if (a.time_limit_s > 0 && !a.devices.empty())
    throw input_error("--time-limit stops between the rounds of one GPU's run; it does not take --devices");
  if (!a.host.empty() && a.devices.empty())
    throw input_error("--host names the host of a --devices run; give --devices too");
  if (a.host.find_first_of("/ \t") != std::string::npos)
    throw input_error(fmt::format("--host \"{}\": a host name goes into file names (no '/' or spaces)", a.host));
  // The label is written into the result file, whose JSON must be UTF-8; control characters are
  // allowed (and escaped wherever the label is shown).
  if (!valid_utf8(a.label)) throw input_error(fmt::format("--label \"{}\": not valid UTF-8", terminal_text(a.label)));
}

runner_options runner_options_of(const run_args& a, const suite& s) {
  runner_options o;
  o.settings = s.defaults;
  if (a.reps >= 0) o.settings.repetitions = a.reps;
  if (a.warmup >= 0) o.settings.warmup = a.warmup;
  if (a.min_time_ms >= 0) o.settings.min_time_ms = a.min_time_ms;
  if (a.warmup_ms >= 0) o.settings.warmup_ms = a.warmup_ms;
  o.device = a.device;
  o.label = a.label;
  o.cold = a.cold;
  o.argv = process_argv();
  if (!a.mem_limit.empty()) o.mem_limit = parse_byte_size(a.mem_limit, "--mem-limit");
  return o;
}

child_run_options child_options(const run_args& a, const std::string& suite_path) {
  child_run_options c;
  c.suite_path = suite_path;
  c.filter = a.filter;
  c.reps = a.reps;
  c.warmup = a.warmup;
  c.min_time_ms = a.min_time_ms;
  c.warmup_ms = a.warmup_ms;
  c.device = a.device;
  c.mem_limit = a.mem_limit;
  c.cold = a.cold;
  c.quiet = a.quiet;
  c.label = a.label;
  c.tuning_from = a.tuning_from;
  c.max_workloads = a.max_workloads;
  return c;
}

std::string default_run_output(const std::string& suite_name) {
  // The suite's name comes from its file: no slash, control character or leading dot in the result.
  return fmt::format("cudabench-{}-{}.json", file_name_component(suite_name), utc_stamp());
}

}  // namespace cudabench::cli
