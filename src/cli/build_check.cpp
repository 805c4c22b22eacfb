// See build_check.hpp.
#include "cli/build_check.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include <fmt/format.h>

#include "cudabench/errors.hpp"

namespace cudabench::cli {
namespace {

bool is_executable_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

// Where execvp would find `name`, or "" when nowhere.
std::string find_program(const std::string& name) {
  if (name.find('/') != std::string::npos) return is_executable_file(name) ? name : "";
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t start = 0;
  for (;;) {
    const std::size_t end = dirs.find(':', start);
    std::string dir = dirs.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (dir.empty()) dir = ".";
    if (is_executable_file(dir + "/" + name)) return dir + "/" + name;
    if (end == std::string::npos) return "";
    start = end + 1;
  }
}

}  // namespace

void check_build_command(const std::string& build, const std::vector<std::string>& argv) {
  if (argv.empty()) throw input_error(fmt::format("build \"{}\": an empty command", build));
  std::size_t i = 0;
  if (argv[0] == "env" || (argv[0].size() > 4 && argv[0].compare(argv[0].size() - 4, 4, "/env") == 0)) {
    // env's own options and VAR=VALUE assignments come before the program.
    for (i = 1; i < argv.size() && (argv[i].rfind('-', 0) == 0 || argv[i].find('=') != std::string::npos); ++i) {
    }
    if (i == argv.size()) throw input_error(fmt::format("build \"{}\": env runs no program", build));
  }
  const std::string& program = argv[i];
  if (find_program(program).empty()) {
    struct stat st {};
    const bool exists = program.find('/') != std::string::npos && ::stat(program.c_str(), &st) == 0;
    throw input_error(fmt::format("build \"{}\": {} {}", build, program,
                                  !exists               ? "does not exist (nothing was run)"
                                  : S_ISDIR(st.st_mode) ? "is a directory, not a cudabench executable (nothing was run)"
                                                        : "is not executable (nothing was run)"));
  }
}

}  // namespace cudabench::cli
