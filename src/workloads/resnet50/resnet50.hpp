// Workload kind `resnet50`: torchvision ResNet-50 inference on cuDNN (see workloads/resnet50/).
// Metrics: images_per_s (headline), latency_ms per batch, first_inference_ms (cold: a fresh model
// with its weights on the device, timed through activation allocation, cuDNN plans, workspace and
// its first forward pass; once per repetition), peak_memory_gb. verify() checks the timed
// model's first two images and a reduced-width network (batch 2) against the naive fp32
// reference with raw weights.
#pragma once
#include <memory>

#include "cudabench/gpu/workload.hpp"

namespace cudabench {

std::unique_ptr<workload> make_resnet50(const workload_spec& spec);

}  // namespace cudabench
