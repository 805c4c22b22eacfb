// See conv_layer.hpp.
#ifdef CUDABENCH_HAVE_CUDNN
#include "workloads/resnet50/conv_layer.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "cudabench/device_memory.hpp"
#include "cudabench/gpu/cuda_check.hpp"
#include "kernels/resnet50/epilogue.cuh"

namespace cudabench::resnet {
namespace {

// Largest workspace any candidate may ask for; the heuristics sometimes list FFT variants that
// want gigabytes at batch 256 and are never the fastest.
constexpr std::size_t tune_workspace_bytes = std::size_t{512} << 20;

bool allowed_math(const numerics& num, cudnnMathType_t m) {
  // fp32 must be true fp32 (torchvision with TF32 off): no tensor-core (TF32) variants.
  if (!num.half()) return m != CUDNN_TENSOR_OP_MATH && m != CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION;
  return true;
}

cudnnMathType_t effective_math(const numerics& num, cudnnMathType_t m) { return num.half() ? m : CUDNN_FMA_MATH; }

}  // namespace

std::string conv_shape::key() const {
  return fmt::format("n{}c{}h{}w{}k{}r{}u{}p{}", n, c, h, w, k, kernel, stride, pad);
}

conv_layer::conv_layer(const conv_shape& s, const numerics& num, bool fused, bool residual)
    : shape_(s), num_(num), fused_(fused), residual_(residual) {
  CUDABENCH_CHECK_CUDNN(cudnnSetTensor4dDescriptor(x_desc_.get(), num.format, num.data, s.n, s.c, s.h, s.w));
  CUDABENCH_CHECK_CUDNN(cudnnSetTensor4dDescriptor(y_desc_.get(), num.format, num.data, s.n, s.k, s.p(), s.q()));
  CUDABENCH_CHECK_CUDNN(cudnnSetTensor4dDescriptor(bias_desc_.get(), num.format, num.data, 1, s.k, 1, 1));
  CUDABENCH_CHECK_CUDNN(cudnnSetFilter4dDescriptor(w_desc_.get(), num.data, num.format, s.k, s.c, s.kernel, s.kernel));
  // Pseudo-half for fp16 (fp16 storage, fp32 accumulation), as torch does.
  CUDABENCH_CHECK_CUDNN(cudnnSetConvolution2dDescriptor(conv_.get(), s.pad, s.pad, s.stride, s.stride, 1, 1,
                                                        CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  CUDABENCH_CHECK_CUDNN(cudnnSetConvolutionMathType(conv_.get(), num.half() ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH));
  CUDABENCH_CHECK_CUDNN(cudnnSetActivationDescriptor(relu_.get(), CUDNN_ACTIVATION_RELU, CUDNN_PROPAGATE_NAN, 0.0));
  int n = 0, k = 0, p = 0, q = 0;
  CUDABENCH_CHECK_CUDNN(
      cudnnGetConvolution2dForwardOutputDim(conv_.get(), x_desc_.get(), w_desc_.get(), &n, &k, &p, &q));
  if (n != s.n || k != s.k || p != s.p() || q != s.q())
    throw std::logic_error(fmt::format("conv_layer {}: cuDNN output {}x{}x{}x{} != planned", s.key(), n, k, p, q));
}

std::vector<algo_choice> conv_layer::candidates(cudnnHandle_t handle, algo_cache& cache, bool tune, const void* x,
                                                const void* w, void* y) {
  const std::string key = shape_.key() + (num_.half() ? "/fp16" : "/fp32") + (tune ? "/tuned" : "");
  if (auto it = cache.find(key); it != cache.end()) return it->second;

  int max_count = 0;
  CUDABENCH_CHECK_CUDNN(cudnnGetConvolutionForwardAlgorithmMaxCount(handle, &max_count));
  std::vector<cudnnConvolutionFwdAlgoPerf_t> perf(static_cast<std::size_t>(std::max(max_count, 1)));
  int returned = 0;
  if (tune) {
    // Measures every algorithm on the real buffers (plain convolution; the fused epilogue costs
    // the same for each).
    device_buffer<std::byte> ws(tune_workspace_bytes);
    CUDABENCH_CHECK_CUDNN(cudnnFindConvolutionForwardAlgorithmEx(handle, x_desc_.get(), x, w_desc_.get(), w,
                                                                 conv_.get(), y_desc_.get(), y, max_count, &returned,
                                                                 perf.data(), ws.get(), ws.bytes()));
  } else {
    CUDABENCH_CHECK_CUDNN(cudnnGetConvolutionForwardAlgorithm_v7(handle, x_desc_.get(), w_desc_.get(), conv_.get(),
                                                                 y_desc_.get(), max_count, &returned, perf.data()));
  }
  std::vector<algo_choice> out;
  auto consider = [&](cudnnConvolutionFwdAlgo_t algo, cudnnMathType_t math, std::size_t memory) {
    algo_choice a;
    a.algo = algo;
    a.math = effective_math(num_, math);
    CUDABENCH_CHECK_CUDNN(cudnnSetConvolutionMathType(conv_.get(), a.math));
    std::size_t ws = 0;
    if (cudnnGetConvolutionForwardWorkspaceSize(handle, x_desc_.get(), w_desc_.get(), conv_.get(), y_desc_.get(),
                                                a.algo, &ws) != CUDNN_STATUS_SUCCESS)
      return;
    a.workspace = std::max(ws, memory);
    if (a.workspace > tune_workspace_bytes) return;
    const bool dup =
        std::any_of(out.begin(), out.end(), [&](const algo_choice& o) { return o.algo == a.algo && o.math == a.math; });
    if (!dup) out.push_back(a);
  };
  for (int i = 0; i < returned; ++i) {
    const auto& r = perf[static_cast<std::size_t>(i)];
    if (r.status == CUDNN_STATUS_SUCCESS && allowed_math(num_, r.mathType)) consider(r.algo, r.mathType, r.memory);
  }
  // Last resorts, tried only if cuDNN refuses everything it recommended: the implicit-GEMM
  // algorithms support every layout and type used here.
  const cudnnMathType_t fallback_math = num_.half() ? CUDNN_TENSOR_OP_MATH : CUDNN_FMA_MATH;
  consider(CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, fallback_math, 0);
  consider(CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, fallback_math, 0);
  if (out.empty())
    throw unsupported_error(fmt::format("cuDNN lists no usable forward algorithm for convolution {} ({})", shape_.key(),
                                        num_.half() ? "fp16 NHWC" : "fp32 NCHW"));
  cache.emplace(key, out);
  return out;
}

std::size_t conv_layer::max_candidate_workspace(cudnnHandle_t handle, algo_cache& cache, bool tune, std::size_t cap,
                                                const void* x, const void* w, void* y) {
  std::size_t m = 0;
  for (const auto& a : candidates(handle, cache, tune, x, w, y))
    if (a.workspace <= cap) m = std::max(m, a.workspace);
  return m;
}

cudnnStatus_t conv_layer::launch(cudnnHandle_t handle, const algo_choice& a, bool fused, const void* x, const void* w,
                                 const void* bias, const void* z, void* y, void* workspace,
                                 std::size_t workspace_bytes) const {
  // Both data types scale with float (cuDNN: float scalars for half and float tensors).
  const float one = 1.0f, zero = 0.0f;
  if (!fused)
    return cudnnConvolutionForward(handle, &one, x_desc_.get(), x, w_desc_.get(), w, conv_.get(), a.algo, workspace,
                                   workspace_bytes, &zero, y_desc_.get(), y);
  // Without a residual, z aliases y with alpha2 = 0 (y's previous contents are finite: the model
  // clears its buffers at allocation, and every later value was written by a layer).
  return cudnnConvolutionBiasActivationForward(handle, &one, x_desc_.get(), x, w_desc_.get(), w, conv_.get(), a.algo,
                                               workspace, workspace_bytes, residual_ ? &one : &zero, y_desc_.get(),
                                               residual_ ? z : y, bias_desc_.get(), bias, relu_.get(), y_desc_.get(),
                                               y);
}

void conv_layer::plan(cudnnHandle_t handle, algo_cache& cache, bool tune, const void* x, const void* w,
                      const void* bias, const void* z, void* y, void* workspace, std::size_t workspace_bytes) {
  std::string refused;
  // Fused first; a fused layer that cuDNN refuses for every algorithm falls back to split.
  for (const bool fused : {fused_, false}) {
    for (const auto& a : candidates(handle, cache, tune, x, w, y)) {
      if (a.workspace > workspace_bytes) continue;
      CUDABENCH_CHECK_CUDNN(cudnnSetConvolutionMathType(conv_.get(), a.math));
      const cudnnStatus_t st = launch(handle, a, fused, x, w, bias, z, y, workspace, workspace_bytes);
      if (st == CUDNN_STATUS_SUCCESS) {
        choice_ = a;
        split_ = fused_ && !fused;
        return;
      }
      refused +=
          fmt::format(" {}algo {}: {};", fused ? "fused " : "", static_cast<int>(a.algo), cudnnGetErrorString(st));
    }
    if (!fused_) break;
  }
  throw unsupported_error(fmt::format("cuDNN runs no algorithm for convolution {} ({}):{}", shape_.key(),
                                      num_.half() ? "fp16 NHWC" : "fp32 NCHW", refused));
}

void conv_layer::epilogue(cudnnHandle_t handle, const void* bias, const void* z, void* y) const {
  cudaStream_t stream = nullptr;
  CUDABENCH_CHECK_CUDNN(cudnnGetStream(handle, &stream));
  const long long pq = static_cast<long long>(shape_.p()) * shape_.q();
  kernels::resnet50::bias_residual_relu(y, bias, residual_ ? z : nullptr, num_.element(),
                                        num_.format == CUDNN_TENSOR_NHWC,
                                        static_cast<long long>(shape_.n) * shape_.k * pq, shape_.k,
                                        static_cast<int>(pq), stream);
}

void conv_layer::run(cudnnHandle_t handle, const void* x, const void* w, const void* bias, const void* z, void* y,
                     void* workspace, std::size_t workspace_bytes) const {
  CUDABENCH_CHECK_CUDNN(launch(handle, choice_, fused_ && !split_, x, w, bias, z, y, workspace, workspace_bytes));
  if (split_) epilogue(handle, bias, z, y);
}

}  // namespace cudabench::resnet
#endif  // CUDABENCH_HAVE_CUDNN
