// One process per GPU, all at once: what `run --devices` and `ab --devices` share. Each GPU's
// process writes its progress to its own log (eight interleaved progress streams would be
// unreadable); this prints one line per GPU as it ends, and the end of the log when it failed.
#pragma once
#include <string>
#include <vector>

#include "cli/subprocess.hpp"
#include "cudabench/fleet.hpp"

namespace cudabench::cli {

struct gpu_job {
  int device = 0;
  std::vector<std::string> argv;
  std::string log;     // the process's stderr
  std::string output;  // what it writes (a result file, or a directory for `ab`), for the done line
};

// Starts every job, waits for all; `quiet` keeps only the failure lines. An exit code up to
// `highest_ok` is not a failure (`ab` exits 1 for "regressed").
std::vector<child_result> run_gpu_jobs(const std::vector<gpu_job>& jobs, bool quiet, int highest_ok = 0);

// The GPU's entry for a fleet: its result file read when present and readable, otherwise a note
// with the exit code and the last line of its log.
fleet_gpu gpu_entry(const std::string& host, const gpu_job& job, const std::string& result_file, const child_result& r);

// "HOST-gpu-N": the stem of every per-GPU file name, so hosts sharing a directory do not collide.
std::string gpu_stem(const std::string& host, int device);

// The last non-empty line of a log ("" when none).
std::string last_log_line(const std::string& log);

}  // namespace cudabench::cli
