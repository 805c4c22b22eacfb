// Starting a child process and waiting for it: how `run --rounds` gives every round a fresh
// process (fresh CUDA context, fresh tuning) and how `ab` runs each build. POSIX only.
#pragma once
#include <string>
#include <vector>

namespace cudabench::cli {

struct child_result {
  int exit_code = 0;    // the child's exit status, 128 + signal when it was killed, 127 when it could not start
  bool interrupted = false;  // the parent saw Ctrl-C while the child ran
};

// Runs argv[0] (looked up on PATH when it has no '/') with argv, stdout sent to /dev/null when
// `discard_stdout`, stderr inherited; waits for it. Ctrl-C reaches the child (same process group),
// which finishes cleanly; the parent notes it in `interrupted` instead of dying.
child_result run_child(const std::vector<std::string>& argv, bool discard_stdout);

// This executable's own path (/proc/self/exe), so rounds run the very same binary.
std::string self_executable();

// A side of `ab` given as one string: an existing file is the command itself; otherwise the
// string is split on whitespace ("env LD_LIBRARY_PATH=/opt/cu121/lib build/cudabench"; no quoting).
std::vector<std::string> split_command(const std::string& side);

}  // namespace cudabench::cli
