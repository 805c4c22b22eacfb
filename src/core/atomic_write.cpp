// See atomic_write.hpp.
#include "cudabench/atomic_write.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

#include "cudabench/errors.hpp"

namespace cudabench {

void write_file_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw input_error(fmt::format("{}: cannot write: {}", tmp, std::strerror(errno)));
    out << text;
    out.flush();
    if (!out) throw input_error(fmt::format("{}: write failed: {}", tmp, std::strerror(errno)));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    throw input_error(fmt::format("{}: cannot rename {} into place: {}", path, tmp, std::strerror(err)));
  }
}

}  // namespace cudabench
