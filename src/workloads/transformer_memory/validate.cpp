// See validate.hpp.
#include "workloads/transformer_memory/validate.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "cudabench/gpu/cuda_check.hpp"
#include "workloads/transformer_memory/reference.hpp"

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

}  // namespace cudabench::transformer
