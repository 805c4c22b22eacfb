// See resnet50.hpp.
#include "workloads/resnet50/resnet50.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "cudabench/build_config.hpp"
#include "cudabench/device_memory.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/gpu/cuda_check.hpp"
#include "cudabench/gpu/cuda_handles.hpp"
#include "kernels/common/random_fill.cuh"
#include "workloads/resnet50/resnet50_workload.hpp"
#include "workloads/resnet50/resnet_model.hpp"
#include "workloads/resnet50/resnet_reference.hpp"

#ifndef CUDABENCH_HAVE_CUDNN
namespace cudabench::resnet {
class resnet_model {};  // never constructed: setup() reports unsupported without cuDNN
}  // namespace cudabench::resnet
#endif

namespace cudabench {
namespace {
#ifdef CUDABENCH_HAVE_CUDNN

// Input images: seeded uniform in [-2, 2), about the range of ImageNet-normalised pixels.
constexpr float pixel_lo = -2.0f, pixel_hi = 2.0f;
constexpr std::uint64_t input_salt = 0x1a9e5;
constexpr std::uint64_t reduced_salt = 0x7ed0ced;

// Tolerances on the relative L2 error of the logits against the fp32 reference. fp32 must be true
// fp32 (TF32 would land near 1e-3); fp16 stores every activation in half precision across 53
// convolutions.
double tolerance_full(dtype d) { return d == dtype::fp16 ? 3e-2 : 3e-4; }
double tolerance_reduced(dtype d) { return d == dtype::fp16 ? 2e-2 : 3e-4; }

void fill_images(float* p, int n, int size, std::uint64_t seed, cudaStream_t stream) {
  kernels::fill_uniform(p, static_cast<std::size_t>(n) * 3 * size * size, seed, pixel_lo, pixel_hi, stream);
}

int top1(const std::vector<float>& y, int image, int classes) {
  const auto* row = y.data() + static_cast<std::size_t>(image) * classes;
  return static_cast<int>(std::max_element(row, row + classes) - row);
}
#endif

}  // namespace

std::unique_ptr<workload> make_resnet50(const workload_spec& spec) { return std::make_unique<resnet50_workload>(spec); }

resnet50_workload::resnet50_workload(const workload_spec& spec)
    : dtype_(parse_dtype(spec.get_string("dtype"), "resnet50", {dtype::fp16, dtype::fp32})),
      batch_(static_cast<int>(spec.get_int("batch"))),
      image_size_(static_cast<int>(spec.get_int("image_size"))),
      weights_(spec.get_string("weights")),
      tune_(spec.get_bool("tune")) {
  if (image_size_ % 32 != 0)
    throw input_error(fmt::format("{}: image_size {} is not a multiple of 32", spec.id, image_size_));
}

resnet50_workload::~resnet50_workload() = default;

#ifdef CUDABENCH_HAVE_CUDNN

void resnet50_workload::setup(run_context& ctx) {
  seed_ = ctx.seed;
  arch_ = resnet::resnet50_arch(image_size_);
  params_ = weights_ == "random" ? resnet::random_params(arch_, seed_) : resnet::load_params(arch_, weights_);
  resnet::model_options opt;
  opt.dtype = dtype_;
  opt.batch = batch_;
  opt.tune = tune_;
  opt.use_graph = true;
  model_ = std::make_unique<resnet::resnet_model>(arch_, params_, opt);
  device_buffer<float> images(static_cast<std::size_t>(batch_) * 3 * image_size_ * image_size_);
  fill_images(images.get(), batch_, image_size_, seed_ ^ input_salt, ctx.stream);
  model_->set_input(images.get(), ctx.stream);
  CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(ctx.stream));
}

validation_outcome resnet50_workload::verify(run_context& ctx) {
  const int classes = arch_.num_classes;
  // 1. The timed model itself: every logit finite; its first (up to) two images against the naive
  //    reference on the same raw weights (input regenerated: the fill is counter-based).
  model_->forward(ctx.stream);
  const std::vector<float> y = model_->logits(ctx.stream);
  const std::size_t bad =
      static_cast<std::size_t>(std::count_if(y.begin(), y.end(), [](float v) { return !std::isfinite(v); }));
  const int nref = std::min(batch_, 2);
  device_buffer<float> images(static_cast<std::size_t>(nref) * 3 * image_size_ * image_size_);
  fill_images(images.get(), nref, image_size_, seed_ ^ input_salt, ctx.stream);
  const std::vector<float> ref = resnet::reference_forward(arch_, params_, images.get(), nref, ctx.stream);
  const double e_full = resnet::relative_l2(y, ref, static_cast<std::size_t>(nref) * classes);
  int top1_equal = 0;
  for (int i = 0; i < nref; ++i) top1_equal += top1(y, i, classes) == top1(ref, i, classes);

  // 2. A reduced-width network (channels / 8, 64x64, batch 2) through the same cuDNN path,
  //    random raw weights, against the same reference.
  const resnet::arch small = resnet::resnet50_arch(64, 8);
  const resnet::raw_params small_params = resnet::random_params(small, seed_ ^ reduced_salt);
  resnet::model_options opt = model_->options();
  opt.batch = 2;
  opt.tune = false;
  resnet::resnet_model small_model(small, small_params, opt);
  device_buffer<float> small_images(2 * 3 * 64 * 64);
  fill_images(small_images.get(), 2, 64, seed_ ^ reduced_salt, ctx.stream);
  small_model.set_input(small_images.get(), ctx.stream);
  small_model.forward(ctx.stream);
  const std::vector<float> ys = small_model.logits(ctx.stream);
  const std::vector<float> refs = resnet::reference_forward(small, small_params, small_images.get(), 2, ctx.stream);
  const double e_small = resnet::relative_l2(ys, refs, ys.size());

  validation_outcome out;
  const double tf = tolerance_full(dtype_), ts = tolerance_reduced(dtype_);
  out.passed = bad == 0 && e_full <= tf && e_small <= ts;
  // Report the check closest to (or furthest past) its tolerance.
  if (e_full / tf >= e_small / ts) {
    out.max_rel_error = e_full;
    out.tolerance = tf;
  } else {
    out.max_rel_error = e_small;
    out.tolerance = ts;
  }
  out.message = fmt::format(
      "logits relative L2 vs naive fp32 reference (raw batch-norm): timed model, first {} of {} images: {:.3g} "
      "(tol {:.0e}, top-1 equal {}/{}); reduced network (width/8, 64x64, batch 2): {:.3g} (tol {:.0e}); "
      "{} non-finite logits; {}",
      nref, batch_, e_full, tf, top1_equal, nref, e_small, ts, bad, model_->note());
  return out;
}

void resnet50_workload::run(cudaStream_t stream) { model_->forward(stream); }

void resnet50_workload::after_repetition(run_context& ctx) {
  // Cold start: a fresh model whose weights are already on the device (loaded: folded, uploaded;
  // not timed), then everything up to and including its first forward pass -- activation buffers,
  // cuDNN plans (heuristics or tuning, trial runs), workspace, cuBLASLt plan -- timed on the GPU
  // clock between two events. The start event completes at once (the stream is idle), so the span
  // covers the host-side planning too.
  resnet::model_options opt = model_->options();
  opt.use_graph = false;  // a first inference runs eagerly; capturing would only add to it
  opt.defer_prepare = true;
  resnet::resnet_model cold(arch_, params_, opt);
  cold.copy_input_from(*model_, ctx.stream);
  cuda_event start, stop;
  start.record(ctx.stream);
  CUDABENCH_CHECK_CUDA(cudaEventSynchronize(start.get()));
  cold.prepare();
  cold.forward(ctx.stream);
  stop.record(ctx.stream);
  CUDABENCH_CHECK_CUDA(cudaEventSynchronize(stop.get()));
  first_inference_ms_.push_back(stop.since(start));
}

#else  // no cuDNN in this build

void resnet50_workload::setup(run_context&) {
  throw unsupported_error(std::string("resnet50 needs cuDNN, and this build of cudabench has none: ") +
                          CUDABENCH_CUDNN_STATUS);
}
validation_outcome resnet50_workload::verify(run_context&) { return {}; }
void resnet50_workload::run(cudaStream_t) {}
void resnet50_workload::after_repetition(run_context&) {}

#endif

metric_list resnet50_workload::metrics(const measurement& m) const {
  metric_list out;
  out.emplace_back("images_per_s", rate_metric("images/s", batch_, 1.0, m.per_run_ms));
  out.emplace_back("latency_ms", time_metric(m.per_run_ms));
  if (!first_inference_ms_.empty())
    out.emplace_back("first_inference_ms", make_metric("ms (cold)", better::lower, first_inference_ms_));
  out.emplace_back("peak_memory_gb",
                   make_metric("GB", better::lower, {static_cast<double>(m.peak_memory_bytes) / 1e9}));
  return out;
}

void resnet50_workload::teardown() {
  model_.reset();
  params_ = {};
}

}  // namespace cudabench
