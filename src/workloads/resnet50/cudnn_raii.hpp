// Move-only owners for cuDNN handles and descriptors (one template, one alias per kind), so a
// model that throws half-way through construction releases everything it created.
#pragma once
#ifdef CUDABENCH_HAVE_CUDNN
#include <utility>

#include <cudnn.h>

#include "cudabench/gpu/cuda_check.hpp"

namespace cudabench::resnet {

template <class H, cudnnStatus_t (*Create)(H*), cudnnStatus_t (*Destroy)(H)>
class cudnn_object {
 public:
  cudnn_object() { CUDABENCH_CHECK_CUDNN(Create(&h_)); }
  ~cudnn_object() {
    if (h_) Destroy(h_);
  }
  cudnn_object(cudnn_object&& o) noexcept : h_(std::exchange(o.h_, nullptr)) {}
  cudnn_object& operator=(cudnn_object&& o) noexcept {
    if (this != &o) {
      if (h_) Destroy(h_);
      h_ = std::exchange(o.h_, nullptr);
    }
    return *this;
  }
  cudnn_object(const cudnn_object&) = delete;
  cudnn_object& operator=(const cudnn_object&) = delete;
  H get() const noexcept { return h_; }

 private:
  H h_ = nullptr;
};

using cudnn_handle = cudnn_object<cudnnHandle_t, cudnnCreate, cudnnDestroy>;
using tensor_desc = cudnn_object<cudnnTensorDescriptor_t, cudnnCreateTensorDescriptor, cudnnDestroyTensorDescriptor>;
using filter_desc = cudnn_object<cudnnFilterDescriptor_t, cudnnCreateFilterDescriptor, cudnnDestroyFilterDescriptor>;
using conv_desc =
    cudnn_object<cudnnConvolutionDescriptor_t, cudnnCreateConvolutionDescriptor, cudnnDestroyConvolutionDescriptor>;
using activation_desc =
    cudnn_object<cudnnActivationDescriptor_t, cudnnCreateActivationDescriptor, cudnnDestroyActivationDescriptor>;
using pooling_desc =
    cudnn_object<cudnnPoolingDescriptor_t, cudnnCreatePoolingDescriptor, cudnnDestroyPoolingDescriptor>;

}  // namespace cudabench::resnet
#endif  // CUDABENCH_HAVE_CUDNN
