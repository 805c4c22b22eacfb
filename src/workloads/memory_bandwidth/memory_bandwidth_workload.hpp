// The `memory_bandwidth` workload class, for memory_bandwidth.cpp and the tests that reach into it (outputs to corrupt,
// internals to inspect). Everything else makes one through make_memory_bandwidth (memory_bandwidth.hpp).
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cudabench/device_memory.hpp"
#include "cudabench/gpu/workload.hpp"
#include "kernels/memory_bandwidth/byte_pattern.cuh"

namespace cudabench {

enum class memory_op { d2d, h2d_pinned, d2h_pinned, h2d_pageable, d2h_pageable, memset };
memory_op memory_op_from_string(const std::string& s);  // throws input_error

class memory_bandwidth_workload : public workload {
 public:
  explicit memory_bandwidth_workload(const workload_spec& spec);

  void setup(run_context& ctx) override;
  validation_outcome verify(run_context& ctx) override;
  void run(cudaStream_t stream) override;
  metric_list metrics(const measurement& m) const override;
  void teardown() override;

  // Checks the destination as it stands (verify() = poison, run once, check_destination). Tests
  // corrupt it between verify() and this call to prove the check can fail.
  validation_outcome check_destination(run_context& ctx);

  void* destination() const;  // device pointer, or host pointer for d2h ops
  bool destination_on_device() const;
  std::size_t bytes() const { return bytes_; }
  bool uses_copy_kernel() const { return use_copy_kernel_; }  // d2d: which copy won at setup

 private:
  struct pinned_free {
    void operator()(std::byte* p) const noexcept;
  };

  memory_op op_;
  std::size_t bytes_;
  int copy_blocks_ = 1;  // d2d copy kernel grid (resident blocks), from setup
  bool use_copy_kernel_ = false;
  std::size_t planted_rewrite_bytes_ = 0;  // memset: CUDABENCH_PLANT_MEMSET_REWRITE_PCT (verdict tests)
  std::string method_;                     // what run() does, for the validation message
  kernels::memory_bandwidth::byte_pattern expected_;
  device_buffer<std::byte> src_dev_, dst_dev_;
  std::unique_ptr<std::byte[], pinned_free> pinned_;  // h2d_pinned source or d2h_pinned destination
  std::vector<std::uint64_t> pageable_;               // h2d_pageable source or d2h_pageable destination
  device_buffer<kernels::memory_bandwidth::mismatch_report> report_;
  std::byte* host_ = nullptr;  // pinned_ or pageable_ data, whichever the op uses
  double host_copy_gbps_ = 0;  // pageable ops: the host's memcpy rate at this size, from setup
};

}  // namespace cudabench
