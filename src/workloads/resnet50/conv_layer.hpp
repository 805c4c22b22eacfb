// One planned convolution of the cuDNN ResNet-50: descriptors for its shape and layout, and the
// algorithm chosen once at setup (cuDNN heuristics, or measured with tune = true; cached per
// shape so the repeated blocks of a stage plan once). Two forms:
//   fused: y = relu(conv(x, w) + bias + z)  (z optional: the residual) -- one
//          cudnnConvolutionBiasActivationForward call, with batch-norm already folded into w, bias;
//   plain: y = conv(x, w)                   (the projection shortcut; its folded bias is added by
//          the block's fused conv3, so no identity-activation call is ever needed).
// If cuDNN refuses the fused call for every algorithm of a layer, that layer runs split: the plain
// convolution, then kernels/resnet50/epilogue.cuh (correct, slower; reported by split()).
#pragma once
#ifdef CUDABENCH_HAVE_CUDNN
#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <cudnn.h>

#include "cudabench/dtype.hpp"
#include "workloads/resnet50/cudnn_raii.hpp"

namespace cudabench::resnet {

// How the model stores tensors: fp16 NHWC on tensor cores, or fp32 NCHW with true fp32 math.
struct numerics {
  cudnnDataType_t data = CUDNN_DATA_FLOAT;
  cudnnTensorFormat_t format = CUDNN_TENSOR_NCHW;
  bool half() const { return data == CUDNN_DATA_HALF; }
  dtype element() const { return half() ? dtype::fp16 : dtype::fp32; }
  std::size_t elem_bytes() const { return dtype_bytes(element()); }
};

struct conv_shape {
  int n = 0, c = 0, h = 0, w = 0;  // input (c as stored, channel padding included)
  int k = 0, kernel = 1, stride = 1, pad = 0;
  int p() const { return (h + 2 * pad - kernel) / stride + 1; }
  int q() const { return (w + 2 * pad - kernel) / stride + 1; }
  std::string key() const;
};

struct algo_choice {
  cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM;
  cudnnMathType_t math = CUDNN_DEFAULT_MATH;
  std::size_t workspace = 0;
};

// Candidates per (shape, fused) key, best first; shared by the convs of one model.
using algo_cache = std::map<std::string, std::vector<algo_choice>>;

class conv_layer {
 public:
  conv_layer(const conv_shape& s, const numerics& num, bool fused, bool residual);

  // Picks the algorithm: candidates from the cache or from cuDNN (heuristics, or
  // cudnnFindConvolutionForwardAlgorithmEx when `tune`), then the first that actually runs with
  // these buffers (cuDNN may refuse a fused variant of an algorithm it listed). Enqueues trial
  // runs on the handle's stream. `workspace` must hold `workspace_bytes`; candidates needing more
  // are skipped. Throws unsupported_error when nothing runs.
  void plan(cudnnHandle_t handle, algo_cache& cache, bool tune, const void* x, const void* w, const void* bias,
            const void* z, void* y, void* workspace, std::size_t workspace_bytes);

  // Candidate workspace sizes, so the model can size one shared workspace before plan().
  std::size_t max_candidate_workspace(cudnnHandle_t handle, algo_cache& cache, bool tune, std::size_t cap,
                                      const void* x, const void* w, void* y);

  void run(cudnnHandle_t handle, const void* x, const void* w, const void* bias, const void* z, void* y,
           void* workspace, std::size_t workspace_bytes) const;

  const conv_shape& shape() const { return shape_; }
  const algo_choice& choice() const { return choice_; }
  bool split() const { return split_; }

 private:
  std::vector<algo_choice> candidates(cudnnHandle_t handle, algo_cache& cache, bool tune, const void* x, const void* w,
                                      void* y);
  cudnnStatus_t launch(cudnnHandle_t handle, const algo_choice& a, bool fused, const void* x, const void* w,
                       const void* bias, const void* z, void* y, void* workspace, std::size_t workspace_bytes) const;
  void epilogue(cudnnHandle_t handle, const void* bias, const void* z, void* y) const;

  conv_shape shape_;
  numerics num_;
  bool fused_, residual_;
  bool split_ = false;
  tensor_desc x_desc_, y_desc_, bias_desc_;
  filter_desc w_desc_;
  conv_desc conv_;
  activation_desc relu_;
  algo_choice choice_;
};

}  // namespace cudabench::resnet
#endif  // CUDABENCH_HAVE_CUDNN
