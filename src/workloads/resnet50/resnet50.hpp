// Workload kind `resnet50`: torchvision ResNet-50 inference on cuDNN (see workloads/resnet50/).
// Metrics: images_per_s (headline), latency_ms per batch, first_inference_ms (cold: a fresh model
// with its weights on the device, timed through activation allocation, cuDNN plans, workspace and
// its first forward pass; once per repetition), peak_memory_gb. verify() checks the timed
// model's first two images and a reduced-width network (batch 2) against the naive fp32
// reference with raw weights.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cudabench/dtype.hpp"
#include "cudabench/kind_schema.hpp"
#include "cudabench/workload.hpp"
#include "workloads/resnet50/resnet_arch.hpp"
#include "workloads/resnet50/resnet_params.hpp"

namespace cudabench {
namespace resnet {
class resnet_model;
}

kind_schema resnet50_schema();
std::unique_ptr<workload> make_resnet50(const workload_spec& spec);

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
