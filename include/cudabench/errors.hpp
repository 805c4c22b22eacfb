// Error types shared by core and gpu. Each maps to one outcome: an exit code for the CLI or a
// workload status in the result file. Errors are caught once, at the workload boundary.
#pragma once
#include <cstddef>
#include <stdexcept>
#include <string>

namespace cudabench {

// Bad input from the user: a suite, a result file, an option. Exit code 2. The message already
// names the file and JSON path (e.g. `configs/x.json: workloads[3].dtype: unknown dtype "fp17" ...`).
class input_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The environment cannot run GPU work (no device, driver too old). Exit code 3.
class runtime_failure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A device allocation failed or would exceed --mem-limit. Becomes status `oom`.
class oom_error : public std::runtime_error {
 public:
  oom_error(const std::string& what, std::size_t requested_bytes)
      : std::runtime_error(what), requested_bytes_(requested_bytes) {}
  std::size_t requested_bytes() const noexcept { return requested_bytes_; }

 private:
  std::size_t requested_bytes_;
};

// The workload cannot run on this GPU/build (fp8 before sm_89, no cuDNN). Status `unsupported`.
class unsupported_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace cudabench
