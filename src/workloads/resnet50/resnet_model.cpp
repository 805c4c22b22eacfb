// See resnet_model.hpp.
#ifdef CUDABENCH_HAVE_CUDNN
#include "workloads/resnet50/resnet_model.hpp"

#include <algorithm>
#include <cstring>

#include <cuda_fp16.h>
#include <fmt/format.h>

#include "cudabench/gpu/cuda_check.hpp"
#include "cudabench/gpu/dtype_cuda.hpp"
#include "kernels/resnet50/layout.cuh"

namespace cudabench::resnet {
namespace {

// Stored input channels: fp16 NHWC pads to 8 (tensor-core alignment); fp32 NCHW keeps 3.
int stored_channels(int c, dtype d) { return d == dtype::fp16 ? (c + 7) / 8 * 8 : c; }

// Host floats -> device buffer in the model's element type.
device_buffer<std::byte> upload(const std::vector<float>& v, dtype type) {
  device_buffer<std::byte> buf(v.size() * dtype_bytes(type));
  if (type == dtype::fp16) {
    std::vector<__half> h(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) h[i] = __float2half_rn(v[i]);
    CUDABENCH_CHECK_CUDA(cudaMemcpy(buf.get(), h.data(), buf.bytes(), cudaMemcpyHostToDevice));
  } else {
    CUDABENCH_CHECK_CUDA(cudaMemcpy(buf.get(), v.data(), buf.bytes(), cudaMemcpyHostToDevice));
  }
  return buf;
}

// OIHW [k, c, r, s] -> KRSC [k, r, s, c_pad] with zero channels c..c_pad-1 (cuDNN's NHWC filter).
std::vector<float> to_krsc(const std::vector<float>& w, int k, int c, int r, int c_pad) {
  std::vector<float> out(static_cast<std::size_t>(k) * r * r * c_pad, 0.0f);
  for (int ki = 0; ki < k; ++ki)
    for (int ci = 0; ci < c; ++ci)
      for (int ri = 0; ri < r; ++ri)
        for (int si = 0; si < r; ++si)
          out[((static_cast<std::size_t>(ki) * r + ri) * r + si) * c_pad + ci] =
              w[((static_cast<std::size_t>(ki) * c + ci) * r + ri) * r + si];
  return out;
}

}  // namespace

resnet_model::resnet_model(const arch& a, const raw_params& params, const model_options& opt) : arch_(a), opt_(opt) {
  if (opt.batch < 1) throw input_error(fmt::format("resnet50: batch {} must be >= 1", opt.batch));
  if (params.conv_w.size() != a.convs.size() || params.bn.size() != a.convs.size())
    throw std::logic_error("resnet_model: parameters do not match the architecture");
  num_ = opt.dtype == dtype::fp16 ? numerics{CUDNN_DATA_HALF, CUDNN_TENSOR_NHWC}
                                  : numerics{CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW};
  in_c_ = stored_channels(a.in_channels, opt.dtype);
  CUDABENCH_CHECK_CUDNN(cudnnSetStream(handle_.get(), stream_.get()));

  upload_weights(params);
  input_ = device_buffer<std::byte>(static_cast<std::size_t>(opt.batch) * in_c_ * a.image_size * a.image_size *
                                    num_.elem_bytes());
  CUDABENCH_CHECK_CUDA(cudaMemset(input_.get(), 0, input_.bytes()));
  if (!opt.defer_prepare) prepare();
}

void resnet_model::prepare() {
  if (prepared()) return;
  build_layers();
  plan_layers();
  blas_ = std::make_unique<blaslt_context>(std::size_t{8} << 20);
  fc_ = std::make_unique<lt_matmul>(make_linear(*blas_, opt_.batch, arch_.num_classes, arch_.features,
                                                gemm_types_of(num_.element()), gemm_epilogue::bias, fc_b_.get(),
                                                cuda_data_type(num_.element())));
  if (opt_.use_graph) {
    // One eager pass first: cuDNN and cuBLASLt load kernels and build internal plans lazily, which
    // must not happen inside the capture.
    forward_direct(stream_.get());
    CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(stream_.get()));
    capture_graph();
  } else {
    note_ = plan_note_ + "; cuDNN called directly (no CUDA graph)";
  }
  CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(stream_.get()));
}

void resnet_model::upload_weights(const raw_params& params) {
  const dtype type = num_.element();
  std::vector<folded_conv> folded;
  folded.reserve(arch_.convs.size());
  for (std::size_t i = 0; i < arch_.convs.size(); ++i)
    folded.push_back(fold_batchnorm(arch_.convs[i], params.conv_w[i], params.bn[i]));
  // The projection shortcut runs as a plain convolution; its folded bias joins conv3's bias
  // (relu(conv3 + b3 + ds + b_ds) -- the same sum, one epilogue).
  for (const auto& blk : arch_.blocks)
    if (blk.downsample >= 0)
      for (std::size_t k = 0; k < folded[blk.conv3].b.size(); ++k)
        folded[blk.conv3].b[k] += folded[blk.downsample].b[k];

  for (std::size_t i = 0; i < arch_.convs.size(); ++i) {
    const conv_spec& c = arch_.convs[i];
    const int c_stored = i == 0 ? in_c_ : c.in_c;
    const std::vector<float> w =
        num_.format == CUDNN_TENSOR_NHWC ? to_krsc(folded[i].w, c.out_c, c.in_c, c.kernel, c_stored) : folded[i].w;
    weights_.push_back(upload(w, type));
    biases_.push_back(upload(folded[i].b, type));
  }
  fc_w_ = upload(params.fc_w, type);
  fc_b_ = upload(params.fc_b, type);
}

void resnet_model::build_layers() {
  const int n = opt_.batch;
  const std::size_t eb = num_.elem_bytes();
  const conv_spec& stem = arch_.convs[0];
  const int hs = stem_out(arch_), hp = pool_out(arch_);

  // Largest activation: the stem output or any convolution's output (per image).
  std::size_t max_elems = static_cast<std::size_t>(stem.out_c) * hs * hs;
  {
    int h = hp;
    for (const auto& blk : arch_.blocks) {
      const conv_spec& c2 = arch_.convs[blk.conv2];
      const int h2 = out_size(h, c2.kernel, c2.stride, c2.pad);
      max_elems = std::max(max_elems, static_cast<std::size_t>(arch_.convs[blk.conv1].out_c) * h * h);
      max_elems = std::max(max_elems, static_cast<std::size_t>(arch_.convs[blk.conv3].out_c) * h2 * h2);
      h = h2;
    }
  }
  // Four buffers hold a bottleneck's live tensors: the stream x, t1, t2 and the shortcut; the
  // block output overwrites t1 (dead once conv2 has read it). Cleared so a first read of a
  // buffer (the alpha2 = 0 residual slot) never meets NaN garbage.
  for (int i = 0; i < 4; ++i) {
    act_.emplace_back(static_cast<std::size_t>(n) * max_elems * eb);
    CUDABENCH_CHECK_CUDA(cudaMemset(act_.back().get(), 0, act_.back().bytes()));
  }
  pooled_ = device_buffer<std::byte>(static_cast<std::size_t>(n) * arch_.features * eb);
  logits_ = device_buffer<std::byte>(static_cast<std::size_t>(n) * arch_.num_classes * eb);

  auto add = [&](int conv, int h, const void* x, const void* z, void* y, bool fused, bool residual) {
    const conv_spec& c = arch_.convs[static_cast<std::size_t>(conv)];
    conv_shape s;
    s.n = n;
    s.c = conv == 0 ? in_c_ : c.in_c;
    s.h = s.w = h;
    s.k = c.out_c;
    s.kernel = c.kernel;
    s.stride = c.stride;
    s.pad = c.pad;
    layers_.push_back(std::make_unique<conv_layer>(s, num_, fused, residual));
    io_.push_back({conv, x, z, y, fused ? biases_[static_cast<std::size_t>(conv)].get() : nullptr});
    return s.p();
  };

  // Stem: conv1+bn1+relu -> act0, max-pool -> act1.
  add(0, arch_.image_size, input_.get(), nullptr, act_[0].get(), true, false);
  maxpool_after_ = 0;
  stem_out_ = act_[0].get();
  pool_out_ = act_[1].get();
  CUDABENCH_CHECK_CUDNN(
      cudnnSetTensor4dDescriptor(stem_out_desc_.get(), num_.format, num_.data, n, stem.out_c, hs, hs));
  CUDABENCH_CHECK_CUDNN(
      cudnnSetTensor4dDescriptor(pool_out_desc_.get(), num_.format, num_.data, n, stem.out_c, hp, hp));
  CUDABENCH_CHECK_CUDNN(
      cudnnSetPooling2dDescriptor(maxpool_.get(), CUDNN_POOLING_MAX, CUDNN_PROPAGATE_NAN, 3, 3, 1, 1, 2, 2));

  int xi = 1, h = hp;
  for (const auto& blk : arch_.blocks) {
    int f[3], nf = 0;
    for (int i = 0; i < 4; ++i)
      if (i != xi) f[nf++] = i;
    void* x = act_[static_cast<std::size_t>(xi)].get();
    void* t1 = act_[static_cast<std::size_t>(f[0])].get();
    void* t2 = act_[static_cast<std::size_t>(f[1])].get();
    void* sc = act_[static_cast<std::size_t>(f[2])].get();
    add(blk.conv1, h, x, nullptr, t1, true, false);
    const int h2 = add(blk.conv2, h, t1, nullptr, t2, true, false);
    const void* shortcut = x;
    if (blk.downsample >= 0) {
      add(blk.downsample, h, x, nullptr, sc, false, false);
      shortcut = sc;
    }
    add(blk.conv3, h2, t2, shortcut, t1, true, true);
    xi = f[0];
    h = h2;
  }
  features_ = act_[static_cast<std::size_t>(xi)].get();
  CUDABENCH_CHECK_CUDNN(cudnnSetTensor4dDescriptor(feat_desc_.get(), num_.format, num_.data, n, arch_.features, h, h));
  CUDABENCH_CHECK_CUDNN(
      cudnnSetTensor4dDescriptor(pooled_desc_.get(), num_.format, num_.data, n, arch_.features, 1, 1));
  CUDABENCH_CHECK_CUDNN(cudnnSetPooling2dDescriptor(avgpool_.get(), CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING,
                                                    CUDNN_PROPAGATE_NAN, h, h, 0, 0, h, h));
}

void resnet_model::plan_layers() {
  algo_cache cache;
  // Size one workspace for every candidate, plan (trial runs pick the first algorithm that runs),
  // then shrink it to what the chosen algorithms need.
  constexpr std::size_t cap = std::size_t{512} << 20;
  std::size_t ws = 0;
  for (std::size_t j = 0; j < io_.size(); ++j)
    ws = std::max(ws,
                  layers_[j]->max_candidate_workspace(handle_.get(), cache, opt_.tune, cap, io_[j].x,
                                                      weights_[static_cast<std::size_t>(io_[j].conv)].get(), io_[j].y));
  workspace_ = device_buffer<std::byte>(std::max<std::size_t>(ws, 256));
  for (std::size_t j = 0; j < io_.size(); ++j)
    layers_[j]->plan(handle_.get(), cache, opt_.tune, io_[j].x, weights_[static_cast<std::size_t>(io_[j].conv)].get(),
                     io_[j].bias, io_[j].z, io_[j].y, workspace_.get(), workspace_.bytes());
  std::size_t need = 256;
  int split = 0;
  for (const auto& l : layers_) {
    need = std::max(need, l->choice().workspace);
    split += l->split() ? 1 : 0;
  }
  plan_note_ = split == 0 ? "every conv+bias(+residual)+ReLU fused in cuDNN"
                          : fmt::format(
                                "{} of {} convolutions unfused (cuDNN refused the fused call; separate "
                                "epilogue kernel)",
                                split, layers_.size());
  if (need < workspace_.bytes()) {
    CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(stream_.get()));  // trial runs still use it
    workspace_.reset();
    workspace_ = device_buffer<std::byte>(need);
  }
}

void resnet_model::forward_direct(cudaStream_t stream) {
  CUDABENCH_CHECK_CUDNN(cudnnSetStream(handle_.get(), stream));
  const float one = 1.0f, zero = 0.0f;
  for (std::size_t j = 0; j < io_.size(); ++j) {
    const layer_io& l = io_[j];
    layers_[j]->run(handle_.get(), l.x, weights_[static_cast<std::size_t>(l.conv)].get(), l.bias, l.z, l.y,
                    workspace_.get(), workspace_.bytes());
    if (j == maxpool_after_)
      CUDABENCH_CHECK_CUDNN(cudnnPoolingForward(handle_.get(), maxpool_.get(), &one, stem_out_desc_.get(), stem_out_,
                                                &zero, pool_out_desc_.get(), pool_out_));
  }
  CUDABENCH_CHECK_CUDNN(cudnnPoolingForward(handle_.get(), avgpool_.get(), &one, feat_desc_.get(), features_, &zero,
                                            pooled_desc_.get(), pooled_.get()));
  fc_->run(fc_w_.get(), pooled_.get(), logits_.get(), stream);
}

void resnet_model::capture_graph() {
  cudaStream_t s = stream_.get();
  cudaError_t err = cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed);
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    note_ = fmt::format("{}; CUDA graph capture unavailable ({}), cuDNN called directly", plan_note_,
                        cudaGetErrorName(err));
    return;
  }
  std::string failure;
  try {
    forward_direct(s);
  } catch (const std::exception& e) {
    failure = e.what();
  }
  cudaGraph_t g = nullptr;
  err = cudaStreamEndCapture(s, &g);
  if (failure.empty() && err != cudaSuccess) failure = cudaGetErrorName(err);
  if (failure.empty() && g == nullptr) failure = "empty graph";
  if (failure.empty()) {
    graph_.reset(g);
    g = nullptr;
    err = graph_exec_.instantiate(graph_.get());
    if (err == cudaSuccess) {
      note_ = plan_note_ + "; forward pass captured in a CUDA graph";
      return;
    }
    failure = fmt::format("instantiate: {}", cudaGetErrorName(err));
    graph_.reset();
  }
  if (g) cudaGraphDestroy(g);
  (void)cudaGetLastError();
  note_ = fmt::format("{}; CUDA graph capture failed ({}), cuDNN called directly", plan_note_, failure);
}

void resnet_model::forward(cudaStream_t stream) {
  if (!prepared()) throw std::logic_error("resnet_model::forward before prepare()");
  if (graph_exec_) graph_exec_.launch(stream);
  else forward_direct(stream);
}

void resnet_model::set_input(const float* images, cudaStream_t stream) {
  const int n = opt_.batch, s = arch_.image_size;
  if (num_.format == CUDNN_TENSOR_NHWC) {
    if (num_.half())
      kernels::resnet50::nchw_to_nhwc_padded(images, static_cast<__half*>(static_cast<void*>(input_.get())), n,
                                             arch_.in_channels, s, s, in_c_, stream);
    else
      kernels::resnet50::nchw_to_nhwc_padded(images, static_cast<float*>(static_cast<void*>(input_.get())), n,
                                             arch_.in_channels, s, s, in_c_, stream);
  } else {
    CUDABENCH_CHECK_CUDA(cudaMemcpyAsync(input_.get(), images, input_.bytes(), cudaMemcpyDeviceToDevice, stream));
  }
}

void resnet_model::copy_input_from(const resnet_model& other, cudaStream_t stream) {
  if (other.input_.bytes() != input_.bytes()) throw std::logic_error("resnet_model: input shapes differ");
  CUDABENCH_CHECK_CUDA(
      cudaMemcpyAsync(input_.get(), other.input_.get(), input_.bytes(), cudaMemcpyDeviceToDevice, stream));
}

std::vector<float> resnet_model::logits(cudaStream_t stream) const {
  CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(stream));
  const std::size_t count = static_cast<std::size_t>(opt_.batch) * arch_.num_classes;
  std::vector<float> out(count);
  if (num_.half()) {
    std::vector<__half> h(count);
    CUDABENCH_CHECK_CUDA(cudaMemcpy(h.data(), logits_.get(), count * 2, cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < count; ++i) out[i] = __half2float(h[i]);
  } else {
    CUDABENCH_CHECK_CUDA(cudaMemcpy(out.data(), logits_.get(), count * 4, cudaMemcpyDeviceToHost));
  }
  return out;
}

}  // namespace cudabench::resnet
#endif  // CUDABENCH_HAVE_CUDNN
