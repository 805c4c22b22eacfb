// See gpu_batch.hpp.
#include "cli/gpu_batch.hpp"

#include <chrono>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "cudabench/errors.hpp"

namespace cudabench::cli {

std::string gpu_stem(const std::string& host, int device) { return fmt::format("{}-gpu-{}", host, device); }

std::string last_log_line(const std::string& log) {
  std::ifstream in(log);
  std::string line, last;
  while (std::getline(in, line))
    if (line.find_first_not_of(" \t\r") != std::string::npos) last = line;
  return last;
}

std::vector<child_result> run_gpu_jobs(const std::vector<gpu_job>& jobs, bool quiet, int highest_ok) {
  std::vector<child_spec> specs;
  for (const auto& j : jobs) specs.push_back(child_spec{j.argv, true, j.log});
  const auto t0 = std::chrono::steady_clock::now();
  return run_children(specs, [&](std::size_t i, const child_result& r) {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const gpu_job& j = jobs[i];
    if (r.exit_code >= 0 && r.exit_code <= highest_ok) {
      if (!quiet) fmt::print(stderr, "GPU {}: done in {:.1f} s -> {}\n", j.device, s, j.output);
      return;
    }
    const std::string last = last_log_line(j.log);
    fmt::print(stderr, "GPU {}: exit code {} after {:.1f} s{}{} (log: {})\n", j.device, r.exit_code, s,
               last.empty() ? "" : ": ", last, j.log);
  });
}

fleet_gpu gpu_entry(const std::string& host, const gpu_job& job, const std::string& file, const child_result& r) {
  fleet_gpu g;
  g.host = host;
  g.index = job.device;
  g.exit_code = r.exit_code;
  std::error_code ec;
  if (std::filesystem::exists(file, ec)) {
    g.file = std::filesystem::path(file).filename().string();
    try {
      g.result = read_result_file(file);
    } catch (const input_error& e) {
      g.note = e.what();
    }
  } else {
    g.note = fmt::format("exit code {}, no result file", r.exit_code);
  }
  if (r.exit_code != 0 && (!g.result || g.note.empty())) {
    const std::string last = last_log_line(job.log);
    if (!last.empty()) g.note += (g.note.empty() ? "" : "; ") + last;
  }
  return g;
}

}  // namespace cudabench::cli
