// The `matmul` workload class, for matmul.cpp and the tests that reach into it (outputs to corrupt,
// internals to inspect). Everything else makes one through make_matmul (matmul.hpp).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cudabench/device_memory.hpp"
#include "cudabench/dtype.hpp"
#include "cudabench/gpu/workload.hpp"

namespace cudabench {

// One of matmul's dtypes (fp8 is fp8_e4m3); throws input_error.
dtype matmul_dtype_from_string(const std::string& s);

// Relative-error tolerance of one dtype at depth k (see matmul.cpp for the derivation).
double matmul_tolerance(dtype d, std::int64_t k);

struct matmul_lt_plan;  // cuBLASLt descriptors and the chosen algorithm (matmul.cpp)
class blaslt_context;

class matmul_workload : public workload {
 public:
  explicit matmul_workload(const workload_spec& spec);
  ~matmul_workload() override;

  void setup(run_context& ctx) override;
  validation_outcome verify(run_context& ctx) override;
  void run(cudaStream_t stream) override;
  bool graph_capturable() const override { return true; }  // one cuBLASLt call, workspace preallocated
  metric_list metrics(const measurement& m) const override;
  void teardown() override;
  nlohmann::ordered_json tuning() const override;

  // Checks the output as it stands (verify() = poison, run once, check_output). Tests corrupt the
  // output between verify() and this call to prove the check can fail.
  validation_outcome check_output(run_context& ctx);

  void* output() const { return c_.get(); }
  std::size_t output_element_bytes() const;
  std::int64_t m() const { return m_; }
  std::int64_t n() const { return n_; }
  std::int64_t k() const { return k_; }
  int batch() const { return batch_; }

 private:
  dtype dtype_;
  std::int64_t m_, n_, k_;
  int batch_;
  std::unique_ptr<blaslt_context> lt_;
  std::unique_ptr<matmul_lt_plan> plan_;
  device_buffer<std::byte> a_, b_, c_;
};

}  // namespace cudabench
