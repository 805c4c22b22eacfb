// The double-precision building blocks the CPU references share (reference.cpp's forward,
// reference_backward.cpp's forward with its tape and backward): state_dict lookup, nn.Linear,
// LayerNorm and the dropout masks drawn from dropout_rng.hpp's hash. Internal to those two files.
#pragma once
#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/transformer_memory/dropout_rng.hpp"
#include "workloads/transformer_memory/config.hpp"

namespace cudabench::transformer::ref {

using vec = std::vector<double>;
using weight_map = std::map<std::string, vec>;

// The weight `prefix + suffix`. Prefix and suffix are separate arguments (an lvalue and a
// literal) so no caller builds a temporary name: the returned reference points into `m`, and
// gcc 13's -Wdangling-reference cannot mistake it for one into a temporary string.
inline const vec& w(const weight_map& m, const std::string& prefix, const char* suffix) {
  const std::string name = prefix + suffix;
  auto it = m.find(name);
  if (it == m.end()) throw std::out_of_range("reference: missing weight " + name);
  return it->second;
}

// y[r, o] = sum_i x[r, i] * W[row_off + o, i] + b[row_off + o], for o < out.
inline vec linear(const vec& x, int rows, int in, const vec& W, const vec& b, int row_off, int out) {
  vec y(static_cast<std::size_t>(rows) * out);
  for (int r = 0; r < rows; ++r)
    for (int o = 0; o < out; ++o) {
      double acc = b[row_off + o];
      for (int i = 0; i < in; ++i)
        acc += x[static_cast<std::size_t>(r) * in + i] * W[static_cast<std::size_t>(row_off + o) * in + i];
      y[static_cast<std::size_t>(r) * out + o] = acc;
    }
  return y;
}

inline void layernorm(vec& x, int rows, int d, const vec& g, const vec& b, double eps) {
  for (int r = 0; r < rows; ++r) {
    double* p = &x[static_cast<std::size_t>(r) * d];
    double mean = 0, var = 0;
    for (int i = 0; i < d; ++i) mean += p[i];
    mean /= d;
    for (int i = 0; i < d; ++i) var += (p[i] - mean) * (p[i] - mean);
    var /= d;
    const double inv = 1.0 / std::sqrt(var + eps);
    for (int i = 0; i < d; ++i) p[i] = (p[i] - mean) * inv * g[i] + b[i];
  }
}

// Train mode with p > 0: the masks, regenerated from dropout_rng.hpp's hash exactly as the
// kernels draw them (same seeds, same element indices), applied in double.
struct dropper {
  bool on = false;
  std::uint64_t seed = 0;
  std::uint32_t threshold = 0;
  double scale = 1;
  double operator()(double v, std::uint64_t index) const {
    if (!on) return v;
    return dropout_keep(seed, index, threshold) ? v * scale : 0.0;
  }
};
inline dropper dropout_for(const config& c, int layer, dropout_site site) {
  dropper d;
  if (!c.train() || c.dropout <= 0) return d;
  d.on = true;
  d.seed = dropout_site_seed(c.dropout_seed, layer, site);
  d.threshold = dropout_threshold(c.dropout);
  d.scale = static_cast<double>(static_cast<float>(1.0 / (1.0 - c.dropout)));  // the kernels' float scale
  return d;
}
inline void apply(const dropper& d, vec& x) {
  for (std::size_t i = 0; i < x.size(); ++i) x[i] = d(x[i], i);
}

}  // namespace cudabench::transformer::ref
