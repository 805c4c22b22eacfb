// `ab` (and so nightly.sh and build-matrix.sh) runs every build many times; a build that cannot
// even start -- a typo in its path, a file that is not executable -- used to fail in every one of
// those runs, with exit 3 and "results of the others are in DIR" when there were none. Each build's
// program is checked once, before round 1, and a bad one is bad input (exit 2).
#pragma once
#include <string>
#include <vector>

namespace cudabench::cli {

// input_error naming the build and its program when the program `argv` would run does not exist
// or is not executable. `env VAR=VALUE ... PROGRAM ...` is looked through to PROGRAM; a name
// without a slash is looked up on PATH, as execvp does.
void check_build_command(const std::string& build, const std::vector<std::string>& argv);

}  // namespace cudabench::cli
