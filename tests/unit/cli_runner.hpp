// Runs the real cudabench binary (CUDABENCH_BINARY) from unit tests and captures its output.
#pragma once
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <string>

struct cli_result {
  int exit_code = -1;
  std::string output;  // stdout and stderr together
};

// Runs a shell command line, stdout and stderr together.
inline cli_result run_command(const std::string& cmdline) {
  const std::string cmd = cmdline + " 2>&1";
  cli_result r;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return r;
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.output.append(buf.data(), n);
  const int st = pclose(p);
  r.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

// `env`: "VAR=value ..." put before the command (for the fake cudabench's switches).
inline cli_result run_cudabench(const std::string& args, const std::string& env = "") {
  return run_command((env.empty() ? "" : "env " + env + " ") + std::string(CUDABENCH_BINARY) + " " + args);
}
