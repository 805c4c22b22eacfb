// Files a user names (suites, result files) are checked before they are read: a FIFO or a
// character device such as /dev/zero would block or never end, a directory or a symlink loop is
// not a file at all, and a file far larger than any real one would exhaust memory. Each refusal
// is an input_error (exit 2) naming the file and saying what it is instead. Host-only.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

namespace cudabench {

// Documented limits (README "Limits"). A suite is a few KB; 16 MiB leaves room for generated
// sweeps. A result file of 10^6 workloads is about 1.2 GB; 4 GiB leaves room for more metrics.
inline constexpr std::uint64_t max_suite_file_bytes = 16ull << 20;
inline constexpr std::uint64_t max_result_file_bytes = 4ull << 30;

// An open, checked, regular file. Move-only; closes on destruction.
class input_file {
 public:
  // Opens `path` (following symlinks) without blocking, and checks that it is a regular file,
  // non-empty and at most `max_bytes`. `what` names the expected content in messages ("suite
  // file", "result file").
  static input_file open(const std::string& path, const std::string& what, std::uint64_t max_bytes);
  input_file(input_file&& other) noexcept;
  input_file& operator=(input_file&&) = delete;
  input_file(const input_file&) = delete;
  ~input_file();

  std::uint64_t size() const { return size_; }
  const std::string& path() const { return path_; }
  // Reads up to `n` bytes into `buf`; 0 at the end. Throws input_error on a read error.
  std::size_t read(char* buf, std::size_t n);
  // The rest of the file.
  std::string read_all();
  // Back to the first byte (a second pass over the same open file).
  void rewind();

 private:
  input_file(int fd, std::string path, std::uint64_t size) : fd_(fd), path_(std::move(path)), size_(size) {}
  int fd_ = -1;
  std::string path_;
  std::uint64_t size_ = 0;
};

// Whether anything at all is at `path` (a file, a directory, a device, even a dangling or looping
// symlink): a suite argument that names something is reported as that thing, not as "not found".
bool path_exists(const std::string& path);

// Device and inode of the file `path` resolves to; nullopt when it does not exist. Two paths name
// the same file when these are equal (hard links and symlinks included).
struct file_identity {
  std::uint64_t device = 0, inode = 0;
  bool operator==(const file_identity& o) const { return device == o.device && inode == o.inode; }
};
std::optional<file_identity> identity_of(const std::string& path);

}  // namespace cudabench
