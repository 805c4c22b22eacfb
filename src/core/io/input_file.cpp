// See input_file.hpp. The file is opened with O_NONBLOCK and checked with fstat on the open
// descriptor, so there is no window between the check and the read in which a FIFO could be
// swapped in, and opening a FIFO that has no writer returns at once instead of blocking.
#include "cudabench/input_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "cudabench/errors.hpp"

namespace cudabench {
namespace {

std::string kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO (named pipe)";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a regular file";
}

std::string bytes_text(std::uint64_t n) {
  if (n >= (1ull << 30)) return fmt::format("{:.1f} GiB", static_cast<double>(n) / (1ull << 30));
  if (n >= (1ull << 20)) return fmt::format("{:.1f} MiB", static_cast<double>(n) / (1ull << 20));
  return fmt::format("{} bytes", n);
}

[[noreturn]] void open_failed(const std::string& path, const std::string& what, int err) {
  switch (err) {
    case ENOENT: {
      struct stat st {};
      if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
        throw input_error(fmt::format("{}: a symbolic link to a file that does not exist (expected a {})", path, what));
      throw input_error(fmt::format("{}: no such file (expected a {})", path, what));
    }
    case ELOOP:
      throw input_error(
          fmt::format("{}: too many levels of symbolic links (a symlink loop?); expected a {}", path, what));
    case ENOTDIR:
      throw input_error(fmt::format("{}: a component of the path is not a directory (expected a {})", path, what));
    default: throw input_error(fmt::format("{}: cannot open the {}: {}", path, what, std::strerror(err)));
  }
}

}  // namespace

input_file input_file::open(const std::string& path, const std::string& what, std::uint64_t max_bytes) {
  if (path.empty()) throw input_error(fmt::format("an empty path was given (expected a {})", what));
  // A directory opens fine read-only; a FIFO with O_NONBLOCK too: fstat below tells them apart.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) open_failed(path, what, errno);
  input_file f(fd, path, 0);
  struct stat st {};
  if (::fstat(fd, &st) != 0)
    throw input_error(fmt::format("{}: cannot inspect the {}: {}", path, what, std::strerror(errno)));
  if (!S_ISREG(st.st_mode))
    throw input_error(fmt::format("{}: is {}, not a regular file (expected a {})", path, kind_of(st.st_mode), what));
  const auto size = static_cast<std::uint64_t>(st.st_size);
  if (size == 0) throw input_error(fmt::format("{}: empty file (expected a {})", path, what));
  if (size > max_bytes)
    throw input_error(fmt::format("{}: {} is larger than a {} may be ({}, see README \"Limits\")", path,
                                  bytes_text(size), what, bytes_text(max_bytes)));
  // Regular files never block; clear the flag so reads behave as usual.
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  f.size_ = size;
  return f;
}

input_file::input_file(input_file&& other) noexcept
    : fd_(other.fd_), path_(std::move(other.path_)), size_(other.size_) {
  other.fd_ = -1;
}

input_file::~input_file() {
  if (fd_ >= 0) ::close(fd_);
}

std::size_t input_file::read(char* buf, std::size_t n) {
  for (;;) {
    const ssize_t got = ::read(fd_, buf, n);
    if (got >= 0) return static_cast<std::size_t>(got);
    if (errno != EINTR) throw input_error(fmt::format("{}: read failed: {}", path_, std::strerror(errno)));
  }
}

std::string input_file::read_all() {
  std::string text;
  text.reserve(static_cast<std::size_t>(size_));
  char buf[1 << 16];
  // Bounded even if the file grows while it is read: never more than the limit checked at open.
  while (text.size() <= size_) {
    const std::size_t got = read(buf, sizeof buf);
    if (got == 0) break;
    text.append(buf, got);
  }
  return text;
}

void input_file::rewind() {
  if (::lseek(fd_, 0, SEEK_SET) != 0)
    throw input_error(fmt::format("{}: cannot seek back to the start: {}", path_, std::strerror(errno)));
}

bool path_exists(const std::string& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0;
}

std::optional<file_identity> identity_of(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  return file_identity{static_cast<std::uint64_t>(st.st_dev), static_cast<std::uint64_t>(st.st_ino)};
}

}  // namespace cudabench
