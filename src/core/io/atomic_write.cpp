// See atomic_write.hpp.
#include "cudabench/atomic_write.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include <fmt/format.h>

#include "cudabench/errors.hpp"
#include "cudabench/input_file.hpp"

namespace cudabench {
namespace {

std::string directory_of(const std::string& path) {
  const std::filesystem::path p(path);
  return p.has_parent_path() ? p.parent_path().string() : ".";
}

// A fresh name beside `path`: PATH.tmp-PID-N. O_EXCL below makes a clash an error, never a
// shared file, and the pid and counter keep concurrent writers (threads, processes) apart.
std::string temp_name(const std::string& path) {
  static std::atomic<unsigned> counter{0};
  return fmt::format("{}.tmp-{}-{}", path, ::getpid(), counter++);
}

[[noreturn]] void write_failed(const std::string& path, const std::string& tmp, int fd, const char* what, int err) {
  if (fd >= 0) ::close(fd);
  ::unlink(tmp.c_str());
  throw input_error(fmt::format("{}: {}: {}", path, what, std::strerror(err)));
}

}  // namespace

std::optional<std::string> output_problem(const std::string& path, const std::vector<std::string>& inputs) {
  if (path.empty()) return std::string("an empty path was given");
  const std::string dir = directory_of(path);
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) return fmt::format("its directory {} does not exist", dir);
  if (!S_ISDIR(st.st_mode)) return fmt::format("{} is not a directory", dir);
  if (::access(dir.c_str(), W_OK | X_OK) != 0) return fmt::format("its directory {} is not writable", dir);
  if (::stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return std::string("it is a directory");
    // Renaming over a FIFO or a device would replace the special file itself.
    if (!S_ISREG(st.st_mode)) return std::string("it exists and is not a regular file");
  }
  if (const auto out = identity_of(path))
    for (const auto& in : inputs)
      if (identity_of(in) == out)
        return fmt::format("it is the input file {}: refusing to overwrite it (write the output elsewhere)", in);
  return std::nullopt;
}

void check_output_path(const std::string& path, const std::vector<std::string>& inputs) {
  if (const auto why = output_problem(path, inputs))
    throw input_error(fmt::format("-o {}: cannot be written: {}", path, *why));
}

void write_file_atomically(const std::string& given, const std::string& text, const std::vector<std::string>& inputs) {
  check_output_path(given, inputs);
  // An output named through a symlink updates the file it points to, as a plain write would;
  // renaming over the link would replace the link itself.
  std::string path = given;
  struct stat st {};
  if (::lstat(given.c_str(), &st) == 0 && S_ISLNK(st.st_mode))
    if (char* real = ::realpath(given.c_str(), nullptr)) {
      path = real;
      std::free(real);
    }
  const std::string tmp = temp_name(path);
  // 0666 less the umask, as a plain create would give: result files are shared (fleets on NFS).
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  // The temporary file is an implementation detail: the message names the output and its directory.
  if (fd < 0)
    throw input_error(fmt::format("{}: cannot be written: cannot create a file in {}: {}", path, directory_of(path),
                                  std::strerror(errno)));
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) write_failed(path, tmp, fd, "write failed", n < 0 ? errno : ENOSPC);
    p += n;
    left -= static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) write_failed(path, tmp, -1, "write failed", errno);
  if (std::rename(tmp.c_str(), path.c_str()) != 0)
    write_failed(path, tmp, -1, "cannot move the new file into place", errno);
}

}  // namespace cudabench
