// Starting child processes and waiting for them: how `run --rounds` gives every round a fresh
// process (fresh CUDA context, fresh tuning), how `ab` runs each build, and how `--devices` runs
// one process per GPU at the same time. POSIX only.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace cudabench::cli {

struct child_result {
  int exit_code = 0;         // the child's exit status, 128 + signal when it was killed, 127 when it could not start
  bool interrupted = false;  // the parent saw Ctrl-C while the child ran
};

// Runs argv[0] (looked up on PATH when it has no '/') with argv, stdout sent to /dev/null when
// `discard_stdout`, stderr inherited; waits for it. Ctrl-C reaches the child (same process group),
// which finishes cleanly; the parent notes it in `interrupted` instead of dying.
child_result run_child(const std::vector<std::string>& argv, bool discard_stdout);

// One of several children started together.
struct child_spec {
  std::vector<std::string> argv;
  bool discard_stdout = true;
  std::string stderr_file;  // "" = inherit the parent's stderr; otherwise truncated and written there
};

// Starts every child at once, then waits for all of them (Ctrl-C as in run_child: every child gets
// it and saves what it measured). `on_exit(i, result)`, when given, is called as each one ends,
// in the order they end. Returns the results in the order of `specs`.
std::vector<child_result> run_children(const std::vector<child_spec>& specs,
                                       const std::function<void(std::size_t, const child_result&)>& on_exit = {});

// Runs argv with stdout captured into `out` (stderr inherited) and waits for it.
child_result run_child_capture(const std::vector<std::string>& argv, std::string& out);

// This executable's own path (/proc/self/exe), so rounds run the very same binary.
std::string self_executable();

// A side of `ab` given as one string: an existing file is the command itself; otherwise the
// string is split on whitespace ("env LD_LIBRARY_PATH=/opt/cu121/lib build/cudabench"; no quoting).
std::vector<std::string> split_command(const std::string& side);

}  // namespace cudabench::cli
