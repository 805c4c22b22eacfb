// Writing a file so readers never see half of it: the text goes to PATH.tmp, which is then
// renamed over PATH. Result files (rewritten after every workload) and fleet files use it.
// Host-only.
#pragma once
#include <string>

namespace cudabench {

// input_error naming the file when it cannot be written or renamed into place.
void write_file_atomically(const std::string& path, const std::string& text);

}  // namespace cudabench
