// See subprocess.hpp.
#include "cli/subprocess.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

#include "cudabench/errors.hpp"

namespace cudabench::cli {
namespace {

volatile std::sig_atomic_t g_child_interrupted = 0;
extern "C" void note_sigint(int) { g_child_interrupted = 1; }

// Forks and execs one child; stdout/stderr redirected as the spec says. Returns its pid.
pid_t start_child(const child_spec& spec, int stdout_fd) {
  if (spec.argv.empty()) throw std::invalid_argument("start_child: empty argv");
  std::vector<char*> args;
  for (const auto& a : spec.argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int err_fd = -1;
  if (!spec.stderr_file.empty()) {
    err_fd = open(spec.stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (err_fd < 0) throw runtime_failure(fmt::format("cannot write {}: {}", spec.stderr_file, std::strerror(errno)));
  }
  const pid_t pid = fork();
  if (pid < 0) {
    if (err_fd >= 0) close(err_fd);
    throw runtime_failure(fmt::format("cannot start {}: {}", spec.argv[0], std::strerror(errno)));
  }
  if (pid == 0) {
    signal(SIGINT, SIG_DFL);
    if (stdout_fd >= 0) {
      dup2(stdout_fd, STDOUT_FILENO);
    } else if (spec.discard_stdout) {
      const int fd = open("/dev/null", O_WRONLY);
      if (fd >= 0) dup2(fd, STDOUT_FILENO);
    }
    if (err_fd >= 0) dup2(err_fd, STDERR_FILENO);
    execvp(args[0], args.data());
    fmt::print(stderr, "cudabench: error: cannot run {}: {}\n", spec.argv[0], std::strerror(errno));
    _exit(127);
  }
  if (err_fd >= 0) close(err_fd);
  return pid;
}

child_result result_of(int st) {
  child_result r;
  r.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : 1;
  r.interrupted = g_child_interrupted != 0 || r.exit_code == 130;
  return r;
}

// While children run, Ctrl-C only marks them as interrupted here: the children (in our process
// group) get the same signal and save what they measured; we then stop scheduling.
class sigint_note {
 public:
  sigint_note() {
    g_child_interrupted = 0;
    struct sigaction on_int {};
    on_int.sa_handler = note_sigint;
    sigemptyset(&on_int.sa_mask);
    sigaction(SIGINT, &on_int, &previous_);
  }
  ~sigint_note() { sigaction(SIGINT, &previous_, nullptr); }
  sigint_note(const sigint_note&) = delete;
  sigint_note& operator=(const sigint_note&) = delete;

 private:
  struct sigaction previous_ {};
};

}  // namespace

child_result run_child(const std::vector<std::string>& argv, bool discard_stdout) {
  if (argv.empty()) throw std::invalid_argument("run_child: empty argv");
  return run_children({child_spec{argv, discard_stdout, ""}}).front();
}

std::vector<child_result> run_children(const std::vector<child_spec>& specs,
                                       const std::function<void(std::size_t, const child_result&)>& on_exit) {
  sigint_note note;
  std::vector<pid_t> pids;
  std::vector<child_result> results(specs.size());
  try {
    for (const auto& s : specs) pids.push_back(start_child(s, -1));
  } catch (...) {
    for (pid_t p : pids) {  // the ones already started still finish: none is left behind
      int st = 0;
      while (waitpid(p, &st, 0) < 0 && errno == EINTR) {
      }
    }
    throw;
  }
  for (std::size_t left = specs.size(); left > 0; --left) {
    int st = 0;
    pid_t pid;
    while ((pid = waitpid(-1, &st, 0)) < 0 && errno == EINTR) {
    }
    if (pid < 0) break;  // no children left (should not happen)
    const auto it = std::find(pids.begin(), pids.end(), pid);
    if (it == pids.end()) {
      ++left;  // not one of ours (cannot happen in cudabench, which starts no others meanwhile)
      continue;
    }
    const auto i = static_cast<std::size_t>(it - pids.begin());
    results[i] = result_of(st);
    if (on_exit) on_exit(i, results[i]);
  }
  // A Ctrl-C seen after a child ended still counts for every child of this batch.
  for (auto& r : results) r.interrupted = r.interrupted || g_child_interrupted != 0;
  return results;
}

child_result run_child_capture(const std::vector<std::string>& argv, std::string& out) {
  int fds[2];
  if (pipe(fds) != 0) throw runtime_failure(fmt::format("cannot create a pipe: {}", std::strerror(errno)));
  sigint_note note;
  pid_t pid;
  try {
    pid = start_child(child_spec{argv, false, ""}, fds[1]);
  } catch (...) {
    close(fds[0]);
    close(fds[1]);
    throw;
  }
  close(fds[1]);
  char buf[4096];
  ssize_t n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0) out.append(buf, static_cast<std::size_t>(n));
  close(fds[0]);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  return result_of(st);
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
