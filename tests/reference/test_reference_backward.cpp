// The CPU double reference backward of transformer_memory (reference_backward.hpp) against
// central finite differences of the independent forward reference (reference_forward) on a tiny
// model: every element of every parameter's gradient, with dropout off and on (p = 0.3, so a
// 3-element softmax row loses some entries). A wrong formula anywhere -- a transposed weight, a
// missing mask, LayerNorm's mean terms, the softmax Jacobian -- is an O(1) relative error, far
// above the tolerance. Links the GPU library for the reference's code but calls no CUDA, so it is
// labelled `unit` and CI runs it (~0.5 s).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <stdexcept>
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

// Imposed ReLU branches (reference_backward.hpp): its own branches change nothing; one flipped
// branch moves exactly that unit's bias gradient and weight-gradient row in that block, is
// counted, and its distance from zero reported.
relu_branches own_branches(const reference_gradients& r) {
  relu_branches b;
  for (const auto& [block, h] : r.relu_inputs) {
    auto& v = b[block];
    for (double e : h) v.push_back(e > 0);
  }
  return b;
}

TEST(ReferenceBackward, OwnReluBranchesChangeNothing) {
  const config c = tiny(0.3);
  const problem p = make_problem(c);
  const reference_gradients plain = reference_backward(c, p.weights, p.src, p.tgt, p.g);
  ASSERT_EQ(plain.relu_inputs.size(), 4u);  // 2 encoder + 2 decoder feed-forward blocks
  EXPECT_EQ(plain.relu_inputs.at("encoder.layers.1.").size(), 2u * 3 * 16);
  EXPECT_EQ(plain.relu_inputs.at("decoder.layers.0.").size(), 2u * 4 * 16);
  const relu_branches own = own_branches(plain);
  const reference_gradients same = reference_backward(c, p.weights, p.src, p.tgt, p.g, &own);
  EXPECT_EQ(same.relu_flips, 0u);
  EXPECT_EQ(same.relu_flip_margin, 0.0);
  EXPECT_EQ(same.params, plain.params);  // bit for bit
}

TEST(ReferenceBackward, AFlippedReluBranchIsFollowedAndCounted) {
  const config c = tiny(0);
  const problem p = make_problem(c);
  const reference_gradients plain = reference_backward(c, p.weights, p.src, p.tgt, p.g);
  relu_branches flipped = own_branches(plain);
  const vec& h = plain.relu_inputs.at("decoder.layers.1.");
  // The input nearest zero, as a rounding tie would be.
  std::size_t at = 0;
  double scale = 0;
  for (std::size_t i = 0; i < h.size(); ++i) {
    scale = std::max(scale, std::fabs(h[i]));
    if (std::fabs(h[i]) < std::fabs(h[at])) at = i;
  }
  flipped.at("decoder.layers.1.")[at] ^= 1;
  const reference_gradients r = reference_backward(c, p.weights, p.src, p.tgt, p.g, &flipped);
  EXPECT_EQ(r.relu_flips, 1u);
  EXPECT_DOUBLE_EQ(r.relu_flip_margin, std::fabs(h[at]) / scale);
  const std::size_t unit = at % c.dim_feedforward;
  const vec& b0 = plain.params.at("decoder.layers.1.linear1.bias");
  const vec& b1 = r.params.at("decoder.layers.1.linear1.bias");
  for (std::size_t j = 0; j < b0.size(); ++j) {
    if (j == unit) EXPECT_GT(std::fabs(b1[j] - b0[j]), 1e-6) << "the flipped unit's bias gradient";
    else EXPECT_EQ(b1[j], b0[j]) << "bias gradient of unit " << j;
  }
  const vec& w0 = plain.params.at("decoder.layers.1.linear1.weight");
  const vec& w1 = r.params.at("decoder.layers.1.linear1.weight");
  for (std::size_t i = 0; i < w0.size(); ++i)
    if (i / c.d_model != unit) EXPECT_EQ(w1[i], w0[i]) << "weight gradient element " << i;
}

TEST(ReferenceBackward, ImposedBranchesMustCoverEveryBlock) {
  const config c = tiny(0);
  const problem p = make_problem(c);
  relu_branches b = own_branches(reference_backward(c, p.weights, p.src, p.tgt, p.g));
  relu_branches missing = b;
  missing.erase("encoder.layers.1.");
  try {
    reference_backward(c, p.weights, p.src, p.tgt, p.g, &missing);
    ADD_FAILURE() << "a missing block was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("encoder.layers.1."), std::string::npos) << e.what();
  }
  b.at("decoder.layers.0.").pop_back();
  try {
    reference_backward(c, p.weights, p.src, p.tgt, p.g, &b);
    ADD_FAILURE() << "a short block was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(
        std::string(e.what()).find("127 ReLU branches for the feed-forward block decoder.layers.0., which has 128"),
        std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace cudabench::transformer
