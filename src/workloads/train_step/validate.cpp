// See validate.hpp.
#include "workloads/train_step/validate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <fmt/format.h>

#include "cudabench/gpu/cuda_check.hpp"
#include "kernels/common/random_fill.cuh"
#include "workloads/train_step/reference.hpp"

namespace cudabench::train {
namespace {

std::vector<double> download16(const void* dev, std::size_t n, dtype kind) {
  std::vector<std::uint16_t> raw(n);
  CUDABENCH_CHECK_CUDA(cudaMemcpy(raw.data(), dev, n * 2, cudaMemcpyDeviceToHost));
  std::vector<double> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (kind == dtype::fp16) {
      __half_raw h;
      h.x = raw[i];
      out[i] = __half2float(__half(h));
    } else {
      __nv_bfloat16_raw b;
      b.x = raw[i];
      out[i] = __bfloat162float(__nv_bfloat16(b));
    }
  }
  return out;
}

std::vector<double> download32(const float* dev, std::size_t n) {
  std::vector<float> raw(n);
  CUDABENCH_CHECK_CUDA(cudaMemcpy(raw.data(), dev, n * 4, cudaMemcpyDeviceToHost));
  return std::vector<double>(raw.begin(), raw.end());
}

}  // namespace

mlp_config validation_config(dtype kind) {
  mlp_config c;
  c.layers = 3;
  c.hidden = 256;
  c.batch = 128;
  c.kind = kind;
  return c;
}

double gradient_tolerance(dtype kind) { return kind == dtype::fp16 ? 5e-2 : 1e-1; }

validation_outcome check_first_step_gradients(mlp_trainer& t, cudaStream_t stream, double tolerance) {
  const mlp_config& c = t.cfg();
  CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(stream));
  const std::vector<double> w = download32(t.master(), c.params());
  const std::vector<double> x0 = download16(t.input(), c.acts(), c.kind);
  const std::vector<double> tg = download32(t.target(), c.acts());
  const float scale = t.read_scaler().scale;
  t.forward_backward(stream);
  CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(stream));
  const std::vector<double> g = download32(t.grads(), c.params());
  const float loss = t.read_loss();
  const reference_grads ref = reference_gradients(c.layers, c.hidden, c.batch, w, x0, tg);

  validation_outcome out;
  out.tolerance = tolerance;
  std::string per_layer;
  bool finite = std::isfinite(loss);
  for (int l = 0; l < c.layers; ++l) {
    double ref_sq = 0, diff_sq = 0;
    for (std::size_t i = 0; i < c.params_per_layer(); ++i) {
      const double got = g[l * c.params_per_layer() + i] / scale;
      if (!std::isfinite(got)) finite = false;
      ref_sq += ref.dw[l][i] * ref.dw[l][i];
      diff_sq += (got - ref.dw[l][i]) * (got - ref.dw[l][i]);
    }
    const double err = ref_sq > 0 ? std::sqrt(diff_sq / ref_sq) : INFINITY;
    out.max_rel_error = std::max(out.max_rel_error, err);
    per_layer += fmt::format("{}{:.3g}", l ? ", " : "", err);
  }
  const double loss_err = std::fabs(loss - ref.loss) / ref.loss;
  out.passed = finite && out.max_rel_error <= tolerance && loss_err <= tolerance;
  if (!finite) out.max_rel_error = INFINITY;
  out.message = fmt::format(
      "MLP {} layers x {} hidden, batch {}, {}: first-step weight gradients (unscaled by {}) vs CPU double, "
      "||g-ref||/||ref|| per layer [{}], loss {:.6g} vs {:.6g} (rel {:.2g}), tol {:.2g}",
      c.layers, c.hidden, c.batch, dtype_name(c.kind), scale, per_layer, loss, ref.loss, loss_err, tolerance);
  return out;
}

std::vector<float> loss_curve(mlp_trainer& t, int steps, cudaStream_t stream) {
  std::vector<float> losses;
  for (int i = 0; i < steps; ++i) {
    t.step(stream);
    CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(stream));
    losses.push_back(t.read_loss());
  }
  return losses;
}

validation_outcome check_loss_falls(const std::vector<float>& losses, double ratio) {
  validation_outcome out;
  out.tolerance = ratio;
  if (losses.size() < 6) {
    out.message = "loss curve: fewer than 6 steps";
    return out;
  }
  double last5 = 0;
  for (std::size_t i = losses.size() - 5; i < losses.size(); ++i) last5 += losses[i] / 5.0;
  const double first = losses.front();
  out.max_rel_error = last5 / first;
  out.passed = std::isfinite(last5) && first > 0 && last5 < ratio * first;
  out.message = fmt::format("loss over {} steps: first {:.5g}, mean of last 5 {:.5g} (ratio {:.3f}, must be < {:.2f})",
                            losses.size(), first, last5, last5 / first, ratio);
  return out;
}

validation_outcome check_sampled_first_layer_grad(const mlp_trainer& t, int samples, double tolerance) {
  const mlp_config& c = t.cfg();
  CUDABENCH_CHECK_CUDA(cudaDeviceSynchronize());
  const std::vector<double> dz = download16(t.grad_of_first_preact(), c.acts(), c.kind);
  const std::vector<double> x0 = download16(t.input(), c.acts(), c.kind);
  const std::size_t H = c.hidden;
  double max_ref = 0, max_diff = 0;
  for (int s = 0; s < samples; ++s) {
    const std::size_t o = kernels::splitmix64(2 * s + 1) % H, i = kernels::splitmix64(2 * s + 2) % H;
    double ref = 0;
    for (std::size_t b = 0; b < static_cast<std::size_t>(c.batch); ++b) ref += dz[b * H + o] * x0[b * H + i];
    float got = 0;
    CUDABENCH_CHECK_CUDA(cudaMemcpy(&got, t.grads() + o * H + i, sizeof(float), cudaMemcpyDeviceToHost));
    max_ref = std::max(max_ref, std::fabs(ref));
    max_diff = std::max(max_diff, std::isfinite(got) ? std::fabs(got - ref) : INFINITY);
  }
  validation_outcome out;
  out.tolerance = tolerance;
  out.max_rel_error = max_ref > 0 ? max_diff / max_ref : INFINITY;
  out.passed = out.max_rel_error <= tolerance;
  out.message = fmt::format(
      "full-size dW_0: {} sampled entries vs double dot products of the device's dZ_0 and X_0, "
      "max |g-ref|/max|ref| = {:.3g} (tol {:.1g})",
      samples, out.max_rel_error, tolerance);
  return out;
}

}  // namespace cudabench::train
