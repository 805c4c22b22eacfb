// See run_progress.hpp.
#include "cli/run_progress.hpp"

#include <cstdio>

#include <fmt/format.h>

namespace cudabench::cli {
namespace {
std::string fmt_duration(double s) {
  if (s < 60) return fmt::format("{:.1f}s", s);
  return fmt::format("{}m{:02d}s", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
}
}  // namespace

void progress_printer::on_workload_start(std::size_t i, std::size_t n, const workload_spec& spec) {
  if (i == 0) t0_ = std::chrono::steady_clock::now();  // the clock starts with the first workload
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  const std::string eta = i ? fmt_duration(elapsed / static_cast<double>(i) * static_cast<double>(n - i)) : "?";
  fmt::print(stderr, "[{}/{}] {} ... elapsed {}, ETA {}\n", i + 1, n, spec.id, fmt_duration(elapsed), eta);
}

void progress_printer::on_workload_done(std::size_t, std::size_t, const workload_result& r) {
  if (r.state != status::ok) fmt::print(stderr, "      {}: {}\n", to_string(r.state), r.message);
}

void progress_printer::on_interrupted(std::size_t recorded, std::size_t n) {
  fmt::print(stderr, "interrupted: {} of {} workloads recorded{}\n", recorded, n,
             output_path_.empty() ? "" : " in " + output_path_);
}

}  // namespace cudabench::cli
