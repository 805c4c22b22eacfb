// See validate.hpp.
#include "workloads/transformer_memory/validate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include <fmt/format.h>

#include "cudabench/gpu/cuda_check.hpp"
#include "workloads/transformer_memory/reference.hpp"
#include "workloads/transformer_memory/reference_backward.hpp"

namespace cudabench::transformer {
namespace {
std::vector<double> to_double(const std::vector<float>& v) { return std::vector<double>(v.begin(), v.end()); }
}  // namespace

host_snapshot snapshot(const model& m) {
  CUDABENCH_CHECK_CUDA(cudaDeviceSynchronize());
  host_snapshot s;
  const dtype h = m.cfg().dtype;
  for (const auto& e : m.params().table())
    s.weights[e.name] = to_double(download_floats(m.params().get(e.name), e.numel, h));
  s.src = to_double(download_floats(m.src(), static_cast<std::size_t>(m.cfg().src_tokens()) * m.cfg().d_model, h));
  s.tgt = to_double(download_floats(m.tgt(), static_cast<std::size_t>(m.cfg().tgt_tokens()) * m.cfg().d_model, h));
  if (m.cfg().backward) s.grad_out = to_double(download_floats(m.grad_output(), m.output_elems(), h));
  return s;
}

validation_outcome compare_with_reference(const model& m, const host_snapshot& snap, cudaStream_t stream,
                                          double tolerance) {
  m.forward(stream);
  CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(stream));
  const std::vector<float> got = download_floats(m.output(), m.output_elems(), m.cfg().dtype);
  const std::vector<double> ref = reference_forward(m.cfg(), snap.weights, snap.src, snap.tgt);
  validation_outcome out;
  out.tolerance = tolerance;
  std::size_t worst = 0, nonfinite = 0;
  for (std::size_t i = 0; i < got.size(); ++i) {
    if (!std::isfinite(got[i])) {
      ++nonfinite;
      continue;
    }
    const double err = std::fabs(got[i] - ref[i]) / std::max(std::fabs(ref[i]), 1.0);
    if (err > out.max_rel_error) {
      out.max_rel_error = err;
      worst = i;
    }
  }
  const auto& c = m.cfg();
  out.passed = nonfinite == 0 && out.max_rel_error <= tolerance;
  out.message = fmt::format(
      "transformer d_model {} heads {} ff {} layers {}+{} batch {} src {} tgt {} {} {} vs CPU double reference: "
      "attention {}, {} outputs, max |got-ref|/max(|ref|,1) = {:.3g} at {} (got {:.6g}, ref {:.6g}), {} non-finite, tol {:.1g}",
      c.d_model, c.nhead, c.dim_feedforward, c.encoder_layers, c.decoder_layers, c.batch, c.src_len, c.tgt_len,
      dtype_name(c.dtype), c.train() ? fmt::format("train (dropout {}, the same masks)", c.dropout) : "inference",
      kernels::transformer_memory::attention_variant_name(c.effective_attention()), got.size(), out.max_rel_error,
      worst, got[worst], ref[worst], nonfinite, tolerance);
  if (nonfinite != 0) out.max_rel_error = INFINITY;
  return out;
}

config validation_config(dtype type) {
  config c;
  c.d_model = 128;
  c.nhead = 2;
  c.dim_feedforward = 256;
  c.encoder_layers = 2;
  c.decoder_layers = 2;
  c.batch = 2;
  c.src_len = 150;
  c.tgt_len = 37;
  c.dtype = type;
  c.chunk_tokens = 160;  // one sequence per chunk: the chunk loop and its offsets are exercised
  return c;
}

double validation_tolerance(dtype type) { return type == dtype::fp16 ? 2e-2 : 1e-4; }

validation_outcome check_finite(const model& m) {
  CUDABENCH_CHECK_CUDA(cudaDeviceSynchronize());
  const std::vector<float> out = download_floats(m.output(), m.output_elems(), m.cfg().dtype);
  std::size_t nonfinite = 0;
  double max_abs = 0;
  for (float v : out) {
    if (!std::isfinite(v)) ++nonfinite;
    else max_abs = std::max(max_abs, static_cast<double>(std::fabs(v)));
  }
  validation_outcome r;
  r.passed = nonfinite == 0 && max_abs > 0;
  r.message =
      fmt::format("full-size output: {} elements, {} non-finite, max |y| = {:.4g}", out.size(), nonfinite, max_abs);
  return r;
}

relu_branches gpu_relu_branches(const model& m) {
  CUDABENCH_CHECK_CUDA(cudaDeviceSynchronize());
  const config& c = m.cfg();
  relu_branches out;
  const auto read = [&](bool decoder, int layer, std::int64_t tokens) {
    const std::vector<float> relu =
        download_floats(m.relu_output(decoder, layer), static_cast<std::size_t>(tokens) * c.dim_feedforward, c.dtype);
    std::vector<std::uint8_t>& b = out[(decoder ? "decoder.layers." : "encoder.layers.") + std::to_string(layer) + "."];
    b.resize(relu.size());
    for (std::size_t i = 0; i < relu.size(); ++i) b[i] = relu[i] > 0;
  };
  for (int i = 0; i < c.encoder_layers; ++i) read(false, i, c.src_tokens());
  for (int i = 0; i < c.decoder_layers; ++i) read(true, i, c.tgt_tokens());
  return out;
}

validation_outcome compare_gradients(const model& m, const host_snapshot& snap, double tolerance) {
  const relu_branches taken = gpu_relu_branches(m);  // synchronises
  const reference_gradients ref = reference_backward(m.cfg(), snap.weights, snap.src, snap.tgt, snap.grad_out, &taken);
  std::size_t relu_inputs = 0;
  for (const auto& [block, b] : taken) relu_inputs += b.size();
  validation_outcome out;
  out.tolerance = tolerance;
  std::string worst_name;
  std::size_t nonfinite = 0, elems = 0;
  for (const auto& e : m.params().table()) {
    const std::vector<float> got = download_floats(m.gradient(e.name), e.numel, dtype::fp32);
    const std::vector<double>& r = ref.params.at(e.name);
    double max_ref = 0, max_err = 0;
    for (std::size_t i = 0; i < got.size(); ++i) {
      if (!std::isfinite(got[i])) ++nonfinite;
      max_ref = std::max(max_ref, std::fabs(r[i]));
      max_err = std::max(max_err, std::fabs(got[i] - r[i]));
    }
    elems += got.size();
    // A tensor whose reference is all zero would divide by zero: its error is then absolute.
    const double err = max_err / (max_ref > 0 ? max_ref : 1.0);
    if (err >= out.max_rel_error) {
      out.max_rel_error = err;
      worst_name = e.name;
    }
  }
  const bool branches_ok = ref.relu_flip_margin <= relu_flip_margin();
  out.passed = nonfinite == 0 && out.max_rel_error <= tolerance && branches_ok;
  out.message = fmt::format(
      "gradients vs CPU double reference backward on the GPU's ReLU branches: {} tensors, {} elements, worst "
      "max|got-ref|/max|ref| = {:.3g} ({}), {} non-finite, tol {:.1g}; {} of {} ReLU branches differ from "
      "double's{}",
      m.params().table().size(), elems, out.max_rel_error, worst_name, nonfinite, tolerance, ref.relu_flips,
      relu_inputs,
      ref.relu_flips == 0
          ? std::string()
          : fmt::format(", the farthest from zero at {:.2g} of its block's largest input (limit {:.0e}){}",
                        ref.relu_flip_margin, relu_flip_margin(),
                        branches_ok ? "" : ": not a rounding tie, the forward's ReLU is wrong"));
  if (nonfinite != 0) out.max_rel_error = INFINITY;
  return out;
}

// fp32 GEMMs (no TF32), float softmax recomputation and atomic column sums vs double: the
// validation model's sums run over at most 300 rows and 256 columns, so float rounding leaves
// ~1e-5 of a tensor's largest gradient after eight LayerNorm backwards; 1e-3 keeps a margin of
// ~100 while a wrong formula (a dropped mask, the 1/(1-p) scale, a missing mean term) moves a
// tensor by 1e-2 of its scale or more.
double gradient_tolerance() { return 1e-3; }

// fp32 rounding of linear1's output: a 128-term (d_model) dot product of O(1) terms plus a bias is
// off by a few ulps of its terms' sum, ~1e-6 of the block's largest output. Only inputs that close
// to zero may take the other branch; 1e-4 leaves a margin of ~100 above that and ~1000 below a
// typical input (a tenth of the largest), so a ReLU applied to the wrong values cannot hide.
double relu_flip_margin() { return 1e-4; }

validation_outcome check_gradients_finite(const model& m) {
  CUDABENCH_CHECK_CUDA(cudaDeviceSynchronize());
  std::size_t nonfinite = 0, n = 0;
  double max_abs = 0;
  for (const auto& e : m.params().table()) {
    for (float v : download_floats(m.gradient(e.name), e.numel, dtype::fp32)) {
      if (!std::isfinite(v)) ++nonfinite;
      else max_abs = std::max(max_abs, static_cast<double>(std::fabs(v)));
    }
    n += e.numel;
  }
  validation_outcome r;
  r.passed = nonfinite == 0 && max_abs > 0;
  r.message = fmt::format("full-size gradients: {} elements, {} non-finite, max |g| = {:.4g}", n, nonfinite, max_abs);
  return r;
}

}  // namespace cudabench::transformer
