// The one way cudabench writes a file a user named (a result, a fleet, a report, a comparison):
// checked first, then written whole or not at all. Checked: never onto one of the command's own
// input files, by whatever path it is named (device and inode are compared, so ./a.json, a symlink
// and a hard link are all caught); a directory, FIFO or device given as the output is named as
// such; its directory must exist. Written: to a temporary file beside it (same directory, so the
// rename is atomic) and renamed over it; on any failure the temporary file is removed and the old
// file, if any, is untouched, so a reader never sees half a file and nothing is left behind.
// Host-only.
#pragma once
#include <optional>
#include <string>
#include <vector>

namespace cudabench {

// Why `path` cannot be written as an output of a command reading `inputs` ("it is a directory",
// "it is the input file a.json", "its directory x does not exist"), or nullopt when it can. For
// preflights (`run --dry-run`) and for refusing before any work is done.
std::optional<std::string> output_problem(const std::string& path, const std::vector<std::string>& inputs = {});

// input_error "-o PATH: cannot be written: WHY" when output_problem says so.
void check_output_path(const std::string& path, const std::vector<std::string>& inputs = {});

// Checks as check_output_path, then writes `text` atomically. input_error naming the file when it
// cannot be written or renamed into place (the temporary file is removed).
void write_file_atomically(const std::string& path, const std::string& text,
                           const std::vector<std::string>& inputs = {});

}  // namespace cudabench
