// The `resnet50` workload class, for resnet50.cpp and the tests that reach into it (outputs to corrupt,
// internals to inspect). Everything else makes one through make_resnet50 (resnet50.hpp).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cudabench/dtype.hpp"
#include "cudabench/gpu/workload.hpp"
#include "workloads/resnet50/resnet_arch.hpp"
#include "workloads/resnet50/resnet_params.hpp"

namespace cudabench {
namespace resnet {
class resnet_model;
}

class resnet50_workload : public workload {
 public:
  explicit resnet50_workload(const workload_spec& spec);
  ~resnet50_workload() override;

  void setup(run_context& ctx) override;
  validation_outcome verify(run_context& ctx) override;
  void run(cudaStream_t stream) override;
  void after_repetition(run_context& ctx) override;
  metric_list metrics(const measurement& m) const override;
  void teardown() override;

  // For tests: the timed model (null before setup).
  resnet::resnet_model* model() const { return model_.get(); }

 private:
  dtype dtype_ = dtype::fp16;
  int batch_ = 1;
  int image_size_ = 224;
  std::string weights_;
  bool tune_ = false;
  std::uint64_t seed_ = 0;
  resnet::arch arch_;
  resnet::raw_params params_;
  std::unique_ptr<resnet::resnet_model> model_;
  std::vector<double> first_inference_ms_;
};

}  // namespace cudabench
