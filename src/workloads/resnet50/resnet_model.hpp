// The cuDNN ResNet-50 inference model: folded weights on the device, activation buffers, one
// planned conv_layer per convolution, cuDNN max/average pooling and the fc layer on cuBLASLt.
// The forward pass is captured once into a CUDA graph on the model's own stream (when the cuDNN
// build allows capture), so forward() is one graph launch; otherwise it calls cuDNN directly.
//
// Layout: fp16 models store NHWC with the 3 input channels padded to 8; fp32 models NCHW with
// true fp32 math. Every forward reads the model's input buffer and writes logits [batch, classes].
#pragma once
#ifdef CUDABENCH_HAVE_CUDNN
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <cuda_runtime.h>

#include "cudabench/device_memory.hpp"
#include "cudabench/gpu/blaslt.hpp"
#include "cudabench/gpu/cuda_handles.hpp"
#include "workloads/resnet50/conv_layer.hpp"
#include "workloads/resnet50/cudnn_raii.hpp"
#include "workloads/resnet50/resnet_arch.hpp"
#include "workloads/resnet50/resnet_params.hpp"

namespace cudabench::resnet {

struct model_options {
  cudabench::dtype dtype = cudabench::dtype::fp16;  // fp16 or fp32
  int batch = 1;
  bool tune = false;           // measure algorithms (cudnnFind) instead of trusting the heuristics
  bool use_graph = true;       // capture the forward pass in a CUDA graph
  bool defer_prepare = false;  // construct only loads the weights; call prepare() before forward()
};

class resnet_model {
 public:
  // Loads the model: folds batch-norm, uploads the weights, allocates the input buffer. Then,
  // unless opt.defer_prepare, prepare(). Returns with the model's stream synchronised.
  resnet_model(const arch& a, const raw_params& params, const model_options& opt);

  // Allocates activations and the workspace, plans every convolution (trial runs on the model's
  // stream), plans the fc and captures the graph: everything between a loaded model and its first
  // forward pass (what first_inference_ms times). Returns with the model's stream synchronised.
  void prepare();
  bool prepared() const { return fc_ != nullptr; }
  ~resnet_model() = default;
  resnet_model(const resnet_model&) = delete;
  resnet_model& operator=(const resnet_model&) = delete;

  // images: fp32 NCHW [batch, 3, H, W] on the device -> the model's input buffer (its layout).
  void set_input(const float* images, cudaStream_t stream);
  // Copy another model's input (same shape and precision) device-to-device.
  void copy_input_from(const resnet_model& other, cudaStream_t stream);

  // One forward pass on `stream`: a graph launch, or the direct calls when capture failed.
  void forward(cudaStream_t stream);

  // Logits as float [batch, num_classes]; synchronises `stream`.
  std::vector<float> logits(cudaStream_t stream) const;

  bool graph_captured() const { return static_cast<bool>(graph_exec_); }
  cudaStream_t stream() const { return stream_.get(); }
  const std::string& note() const { return note_; }
  const arch& architecture() const { return arch_; }
  const model_options& options() const { return opt_; }
  std::size_t workspace_bytes() const { return workspace_.bytes(); }
  // A convolution's folded weights on the device (tests corrupt them to prove verify can fail).
  void* conv_weights(std::size_t i) const { return weights_[i].get(); }
  std::size_t conv_weight_bytes(std::size_t i) const { return weights_[i].bytes(); }

 private:
  struct layer_io {
    int conv = -1;  // arch::convs index
    const void *x = nullptr, *z = nullptr;
    void* y = nullptr;
    const void* bias = nullptr;  // null for the plain (shortcut) convolution
  };
  void upload_weights(const raw_params& params);
  void build_layers();
  void plan_layers();
  void forward_direct(cudaStream_t stream);
  void capture_graph();

  arch arch_;
  model_options opt_;
  numerics num_;
  int in_c_ = 3;  // stored input channels (padded for fp16)
  struct graph_deleter {
    void operator()(cudaGraph_t g) const noexcept { cudaGraphDestroy(g); }
  };
  // Declared before the cuDNN handle so the handle (bound to it) goes first.
  cuda_stream stream_;  // non-blocking
  cudnn_handle handle_;

  std::vector<device_buffer<std::byte>> weights_, biases_;  // per arch::convs entry
  device_buffer<std::byte> fc_w_, fc_b_;
  device_buffer<std::byte> input_, pooled_, logits_;
  std::vector<device_buffer<std::byte>> act_;  // stem output, then rotating block buffers
  device_buffer<std::byte> workspace_;

  std::vector<std::unique_ptr<conv_layer>> layers_;
  std::vector<layer_io> io_;       // in execution order
  std::size_t maxpool_after_ = 0;  // io_ index after which the max-pool runs
  pooling_desc maxpool_, avgpool_;
  tensor_desc stem_out_desc_, pool_out_desc_, feat_desc_, pooled_desc_;
  const void* stem_out_ = nullptr;
  void* pool_out_ = nullptr;
  const void* features_ = nullptr;
  std::unique_ptr<blaslt_context> blas_;
  std::unique_ptr<lt_matmul> fc_;

  std::unique_ptr<std::remove_pointer_t<cudaGraph_t>, graph_deleter> graph_;
  graph_exec graph_exec_;
  std::string plan_note_, note_;
};

}  // namespace cudabench::resnet
#endif  // CUDABENCH_HAVE_CUDNN
