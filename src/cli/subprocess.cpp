// See subprocess.hpp.
#include "cli/subprocess.hpp"

#include <cerrno>
#include <csignal>
#include <cstring>
#include <sstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include "cudabench/errors.hpp"

namespace cudabench::cli {
namespace {

volatile std::sig_atomic_t g_child_interrupted = 0;
extern "C" void note_sigint(int) { g_child_interrupted = 1; }

}  // namespace

child_result run_child(const std::vector<std::string>& argv, bool discard_stdout) {
  if (argv.empty()) throw std::invalid_argument("run_child: empty argv");
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);

  // While the child runs, Ctrl-C only marks the round as interrupted here: the child (in our
  // process group) gets the same signal and saves what it measured; we then stop scheduling.
  g_child_interrupted = 0;
  struct sigaction on_int {}, previous {};
  on_int.sa_handler = note_sigint;
  sigemptyset(&on_int.sa_mask);
  sigaction(SIGINT, &on_int, &previous);

  const pid_t pid = fork();
  if (pid < 0) {
    sigaction(SIGINT, &previous, nullptr);
    throw runtime_failure(fmt::format("cannot start {}: {}", argv[0], std::strerror(errno)));
  }
  if (pid == 0) {
    signal(SIGINT, SIG_DFL);
    if (discard_stdout) {
      const int fd = open("/dev/null", O_WRONLY);
      if (fd >= 0) dup2(fd, STDOUT_FILENO);
    }
    execvp(args[0], args.data());
    fmt::print(stderr, "cudabench: error: cannot run {}: {}\n", argv[0], std::strerror(errno));
    _exit(127);
  }
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  sigaction(SIGINT, &previous, nullptr);
  child_result r;
  r.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
  r.interrupted = g_child_interrupted != 0 || r.exit_code == 130;
  return r;
}

std::string self_executable() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) throw runtime_failure("cannot find this executable's path (/proc/self/exe)");
  return std::string(buf, static_cast<std::size_t>(n));
}

std::vector<std::string> split_command(const std::string& side) {
  struct stat st {};
  if (stat(side.c_str(), &st) == 0 && S_ISREG(st.st_mode)) return {side};
  std::vector<std::string> words;
  std::istringstream in(side);
  for (std::string w; in >> w;) words.push_back(w);
  if (words.empty()) throw input_error("an empty command was given as a build to run");
  return words;
}

}  // namespace cudabench::cli
