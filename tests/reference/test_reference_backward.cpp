// The CPU double reference backward of transformer_memory (reference_backward.hpp) against
// central finite differences of the independent forward reference (reference_forward) on a tiny
// model: every element of every parameter's gradient, with dropout off and on (p = 0.3, so a
// 3-element softmax row loses some entries). A wrong formula anywhere -- a transposed weight, a
// missing mask, LayerNorm's mean terms, the softmax Jacobian -- is an O(1) relative error, far
// above the tolerance. Links the GPU library for the reference's code but calls no CUDA, so it is
// labelled `unit` and CI runs it (~0.5 s).
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "kernels/transformer_memory/dropout_rng.hpp"
#include "workloads/transformer_memory/params.hpp"
#include "workloads/transformer_memory/reference.hpp"
#include "workloads/transformer_memory/reference_backward.hpp"

namespace cudabench::transformer {
namespace {

using vec = std::vector<double>;
using weight_map = std::map<std::string, vec>;

// d_model 8, 2 heads, ff 16, 2 + 2 layers (gradients flow through a layer into the one before,
// and into the memory from two decoder layers), batch 2, src 3, tgt 4.
config tiny(double dropout) {
  config c;
  c.d_model = 8;
  c.nhead = 2;
  c.dim_feedforward = 16;
  c.encoder_layers = 2;
  c.decoder_layers = 2;
  c.batch = 2;
  c.src_len = 3;
  c.tgt_len = 4;
  c.mode = run_mode::train;
  c.dropout = dropout;
  c.dropout_seed = 5;
  return c;
}

vec uniform(std::mt19937_64& rng, std::size_t n, double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  vec v(n);
  for (double& e : v) e = u(rng);
  return v;
}

struct problem {
  weight_map weights;
  vec src, tgt, g;
};

problem make_problem(const config& c) {
  std::mt19937_64 rng(42);
  problem p;
  for (const auto& e : param_table(c)) p.weights[e.name] = uniform(rng, e.numel, e.lo, e.hi);
  p.src = uniform(rng, static_cast<std::size_t>(c.src_tokens()) * c.d_model, -1, 1);
  p.tgt = uniform(rng, static_cast<std::size_t>(c.tgt_tokens()) * c.d_model, -1, 1);
  p.g = uniform(rng, static_cast<std::size_t>(c.tgt_tokens()) * c.d_model, -1, 1);
  return p;
}

double loss(const config& c, const problem& p) {
  const vec out = reference_forward(c, p.weights, p.src, p.tgt);
  double l = 0;
  for (std::size_t i = 0; i < out.size(); ++i) l += out[i] * p.g[i];
  return l;
}

// Central differences with h = 1e-5: truncation ~h^2 |L'''| ~ 1e-9 and rounding ~1e-16 |L| / h
// ~ 1e-10 for |L| ~ 10, so 1e-6 (absolute, plus relative to the gradient) leaves a wide margin
// while a wrong formula misses by the gradient's own size (~1e-2 .. 1).
void expect_matches_finite_differences(double dropout) {
  const config c = tiny(dropout);
  problem p = make_problem(c);
  const reference_gradients r = reference_backward(c, p.weights, p.src, p.tgt, p.g);
  const vec fwd = reference_forward(c, p.weights, p.src, p.tgt);
  ASSERT_EQ(r.output.size(), fwd.size());
  for (std::size_t i = 0; i < fwd.size(); ++i) ASSERT_NEAR(r.output[i], fwd[i], 1e-12) << "output " << i;
  ASSERT_EQ(r.params.size(), p.weights.size());
  const double h = 1e-5;
  std::size_t checked = 0, nonzero = 0;
  for (auto& [name, values] : p.weights) {
    const vec& an = r.params.at(name);
    ASSERT_EQ(an.size(), values.size()) << name;
    for (std::size_t i = 0; i < values.size(); ++i) {
      const double keep = values[i];
      values[i] = keep + h;
      const double up = loss(c, p);
      values[i] = keep - h;
      const double down = loss(c, p);
      values[i] = keep;
      const double fd = (up - down) / (2 * h);
      EXPECT_NEAR(an[i], fd, 1e-6 + 1e-6 * std::fabs(fd)) << name << "[" << i << "] dropout " << dropout;
      ++checked;
      nonzero += std::fabs(an[i]) > 1e-8;
    }
  }
  EXPECT_EQ(checked, 3040u);        // every element of every parameter
  EXPECT_GT(nonzero, checked / 2);  // not a vacuous match of zeros
}

TEST(ReferenceBackward, MatchesFiniteDifferencesWithoutDropout) { expect_matches_finite_differences(0.0); }

TEST(ReferenceBackward, MatchesFiniteDifferencesWithDropout) {
  // The masks really drop: site (layer 0, attention probabilities) of this seed drops some of the
  // 2 * 2 * 3 * 3 = 36 probabilities at p = 0.3.
  const std::vector<std::uint8_t> mask = dropout_mask(
      dropout_site_seed(tiny(0.3).dropout_seed, 0, dropout_site::self_attention_probs), dropout_threshold(0.3), 36);
  int dropped = 0;
  for (auto k : mask) dropped += k == 0;
  EXPECT_GT(dropped, 0);
  EXPECT_LT(dropped, 36);
  expect_matches_finite_differences(0.3);
}

// Dropout changes the gradients (the masks reach the backward, not just the forward).
TEST(ReferenceBackward, DropoutChangesGradients) {
  const problem p = make_problem(tiny(0));
  const reference_gradients off = reference_backward(tiny(0), p.weights, p.src, p.tgt, p.g);
  const reference_gradients on = reference_backward(tiny(0.3), p.weights, p.src, p.tgt, p.g);
  const vec& a = off.params.at("encoder.layers.0.linear1.weight");
  const vec& b = on.params.at("encoder.layers.0.linear1.weight");
  double diff = 0;
  for (std::size_t i = 0; i < a.size(); ++i) diff = std::max(diff, std::fabs(a[i] - b[i]));
  EXPECT_GT(diff, 1e-3);
}

}  // namespace
}  // namespace cudabench::transformer
