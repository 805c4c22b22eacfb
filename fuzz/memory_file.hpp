// The fuzz input as a file: the readers under test take paths (they check what the path is
// before reading). An anonymous in-memory file (memfd) rewritten for every input keeps the disk
// out of the loop; /proc/self/fd/N names it.
#pragma once
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace cudabench::fuzz {

class memory_file {
 public:
  memory_file() : fd_(::memfd_create("cudabench-fuzz", 0)) {
    if (fd_ < 0) std::abort();
    path_ = "/proc/self/fd/" + std::to_string(fd_);
  }
  // Replaces the file's content with `data`.
  const std::string& write(const std::uint8_t* data, std::size_t size) {
    if (::ftruncate(fd_, 0) != 0) std::abort();
    std::size_t done = 0;
    while (done < size) {
      const ssize_t n = ::pwrite(fd_, data + done, size - done, static_cast<off_t>(done));
      if (n <= 0) std::abort();
      done += static_cast<std::size_t>(n);
    }
    return path_;
  }

 private:
  int fd_;
  std::string path_;
};

}  // namespace cudabench::fuzz
