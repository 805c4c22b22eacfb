// Device allocations that the harness can count and cap. Every workload allocates through
// device_buffer (or device_allocate), so cudabench knows its peak and can emulate a smaller card
// with --mem-limit: an allocation past the budget throws oom_error just as a real OOM would.
// Library workspaces allocated inside cuBLAS/cuDNN are not seen here; the runner adds them from
// cudaMemGetInfo deltas.
#pragma once
#include <cstddef>
#include <cstdint>
#include <utility>

namespace cudabench {

struct memory_tracker {
  // 0 = no limit; `source` names it in the oom message ("--mem-limit", "the row's mem_limit").
  static void set_limit(std::uint64_t bytes, const char* source = "--mem-limit");
  static std::uint64_t limit();
  static std::uint64_t current();
  static std::uint64_t peak();
  static void reset_peak();  // peak := current
};

// cudaMalloc through the tracker. Throws oom_error (requested bytes) on budget or device OOM.
void* device_allocate(std::size_t bytes);
void device_free(void* p, std::size_t bytes) noexcept;

// Move-only owning buffer of `count` elements of T in device memory.
template <class T>
class device_buffer {
 public:
  device_buffer() = default;
  explicit device_buffer(std::size_t count)
      : ptr_(static_cast<T*>(device_allocate(count * sizeof(T)))), count_(count) {}
  ~device_buffer() { reset(); }
  device_buffer(const device_buffer&) = delete;
  device_buffer& operator=(const device_buffer&) = delete;
  device_buffer(device_buffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  device_buffer& operator=(device_buffer&& o) noexcept {
    if (this != &o) {
      reset();
      ptr_ = std::exchange(o.ptr_, nullptr);
      count_ = std::exchange(o.count_, 0);
    }
    return *this;
  }
  void reset() noexcept {
    if (ptr_) device_free(ptr_, count_ * sizeof(T));
    ptr_ = nullptr;
    count_ = 0;
  }
  T* get() const noexcept { return ptr_; }
  std::size_t size() const noexcept { return count_; }
  std::size_t bytes() const noexcept { return count_ * sizeof(T); }
  explicit operator bool() const noexcept { return ptr_ != nullptr; }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace cudabench
