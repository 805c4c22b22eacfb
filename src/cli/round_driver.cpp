// See round_driver.hpp.
#include "cli/round_driver.hpp"

#include <ctime>
#include <filesystem>

#include <fmt/format.h>

#include "cudabench/errors.hpp"
#include "cudabench/result.hpp"

namespace cudabench::cli {

std::vector<std::string> child_run_argv(const std::vector<std::string>& command, const child_run_options& o,
                                        const std::string& out_file) {
  std::vector<std::string> a = command;
  a.insert(a.end(), {"run", "-o", out_file, "--format", "json"});
  append_run_options(a, o);
  if (o.rounds > 1) a.insert(a.end(), {"--rounds", std::to_string(o.rounds)});
  if (o.strict) a.push_back("--strict");
  return a;
}

void append_run_options(std::vector<std::string>& a, const child_run_options& o) {
  a.insert(a.end(), {"--suite", o.suite_path});
  if (!o.filter.empty()) a.insert(a.end(), {"--filter", o.filter});
  if (o.reps >= 0) a.insert(a.end(), {"--reps", std::to_string(o.reps)});
  if (o.warmup >= 0) a.insert(a.end(), {"--warmup", std::to_string(o.warmup)});
  if (o.min_time_ms >= 0) a.insert(a.end(), {"--min-time-ms", fmt::format("{}", o.min_time_ms)});
  if (o.warmup_ms >= 0) a.insert(a.end(), {"--warmup-ms", fmt::format("{}", o.warmup_ms)});
  a.insert(a.end(), {"--device", std::to_string(o.device)});
  if (!o.mem_limit.empty()) a.insert(a.end(), {"--mem-limit", o.mem_limit});
  if (o.cold) a.push_back("--cold");
  if (o.quiet) a.push_back("--quiet");
  if (!o.label.empty()) a.insert(a.end(), {"--label", o.label});
  if (!o.tuning_from.empty()) a.insert(a.end(), {"--tuning-from", o.tuning_from});
  if (o.max_workloads != default_max_workloads) a.insert(a.end(), {"--max-workloads", std::to_string(o.max_workloads)});
}

void side_rounds::add(const std::string& file, const child_result& r) {
  round_input in;
  in.exit_code = r.exit_code;
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) {
    in.has_result = false;
    in.note = fmt::format("no result file (exit code {})", r.exit_code);
  } else {
    try {
      in.result = read_result_file(file);
    } catch (const input_error& e) {
      in.has_result = false;
      in.note = e.what();
    }
  }
  if (r.exit_code != 0 && in.note.empty()) in.note = fmt::format("exit code {}", r.exit_code);
  rounds_.push_back(std::move(in));
}

bool side_rounds::any_result() const {
  for (const auto& r : rounds_)
    if (r.has_result) return true;
  return false;
}

void make_directories(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir))
    throw input_error(fmt::format("{}: cannot create the directory ({})", dir, ec ? ec.message() : "not a directory"));
}

std::string utc_stamp() {
  char stamp[32];
  const std::time_t t = std::time(nullptr);
  std::strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", std::gmtime(&t));
  return stamp;
}

}  // namespace cudabench::cli
