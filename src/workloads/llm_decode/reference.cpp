// See reference.hpp. Written to be read against transformers' modeling_llama.py: RMSNorm,
// q/k/v projections, rotate_half RoPE, causal softmax attention with grouped KV heads, o_proj,
// residual, RMSNorm, SwiGLU MLP, residual; final norm and lm_head.
#include "workloads/llm_decode/reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

namespace cudabench::llm {
namespace {

using vec = std::vector<double>;

// y = W x, W row-major [rows][cols].
vec matvec(const std::vector<float>& w, const vec& x, std::size_t rows) {
  const std::size_t cols = x.size();
  vec y(rows, 0.0);
  for (std::size_t r = 0; r < rows; ++r) {
    const float* row = w.data() + r * cols;
    double acc = 0.0;
    for (std::size_t c = 0; c < cols; ++c) acc += static_cast<double>(row[c]) * x[c];
    y[r] = acc;
  }
  return y;
}

vec rmsnorm(const vec& x, const std::vector<float>& w, double eps) {
  double ss = 0.0;
  for (double v : x) ss += v * v;
  const double rstd = 1.0 / std::sqrt(ss / static_cast<double>(x.size()) + eps);
  vec y(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) y[i] = static_cast<double>(w[i]) * x[i] * rstd;
  return y;
}

// rotate_half convention: element i pairs with i + head_dim/2.
void rope(double* head, int head_dim, int pos, double theta) {
  const int half = head_dim / 2;
  for (int i = 0; i < half; ++i) {
    const double angle = pos * std::pow(theta, -2.0 * i / head_dim);
    const double c = std::cos(angle), s = std::sin(angle);
    const double x1 = head[i], x2 = head[i + half];
    head[i] = x1 * c - x2 * s;
    head[i + half] = x2 * c + x1 * s;
  }
}

class reference_model {
 public:
  reference_model(const llm_config& c, const host_weights& w) : c_(c), w_(w), k_(c.num_layers), v_(c.num_layers) {}

  vec forward(std::int32_t token, int pos) {
    const int h = c_.hidden_size, hd = c_.head_dim, group = c_.group_size();
    if (token < 0 || token >= c_.vocab_size) throw std::out_of_range("reference: token id outside the vocabulary");
    const auto& embed = at("model.embed_tokens.weight");
    vec x(embed.begin() + static_cast<std::ptrdiff_t>(token) * h,
          embed.begin() + static_cast<std::ptrdiff_t>(token + 1) * h);
    for (int l = 0; l < c_.num_layers; ++l) {
      const std::string p = "model.layers." + std::to_string(l) + ".";
      const vec xn = rmsnorm(x, at(p + "input_layernorm.weight"), c_.rms_norm_eps);
      vec q = matvec(at(p + "self_attn.q_proj.weight"), xn, c_.q_dim());
      vec k = matvec(at(p + "self_attn.k_proj.weight"), xn, c_.kv_dim());
      const vec v = matvec(at(p + "self_attn.v_proj.weight"), xn, c_.kv_dim());
      for (int hh = 0; hh < c_.num_heads; ++hh) rope(q.data() + hh * hd, hd, pos, c_.rope_theta);
      for (int hh = 0; hh < c_.num_kv_heads; ++hh) rope(k.data() + hh * hd, hd, pos, c_.rope_theta);
      k_[l].push_back(k);
      v_[l].push_back(v);
      const int len = static_cast<int>(k_[l].size());
      if (len != pos + 1) throw std::logic_error("reference: positions must be fed in order");

      vec attn(c_.q_dim(), 0.0);
      const double scale = 1.0 / std::sqrt(static_cast<double>(hd));
      for (int hh = 0; hh < c_.num_heads; ++hh) {
        const int kvh = hh / group;
        vec scores(len);
        double mx = -std::numeric_limits<double>::infinity();
        for (int t = 0; t < len; ++t) {
          double dot = 0.0;
          for (int d = 0; d < hd; ++d) dot += q[hh * hd + d] * k_[l][t][kvh * hd + d];
          scores[t] = dot * scale;
          mx = std::max(mx, scores[t]);
        }
        double sum = 0.0;
        for (double& s : scores) sum += (s = std::exp(s - mx));
        for (int t = 0; t < len; ++t)
          for (int d = 0; d < hd; ++d) attn[hh * hd + d] += scores[t] / sum * v_[l][t][kvh * hd + d];
      }
      const vec o = matvec(at(p + "self_attn.o_proj.weight"), attn, h);
      for (int i = 0; i < h; ++i) x[i] += o[i];

      const vec xn2 = rmsnorm(x, at(p + "post_attention_layernorm.weight"), c_.rms_norm_eps);
      const vec g = matvec(at(p + "mlp.gate_proj.weight"), xn2, c_.intermediate_size);
      vec u = matvec(at(p + "mlp.up_proj.weight"), xn2, c_.intermediate_size);
      for (std::size_t i = 0; i < u.size(); ++i) u[i] *= g[i] / (1.0 + std::exp(-g[i]));
      const vec d = matvec(at(p + "mlp.down_proj.weight"), u, h);
      for (int i = 0; i < h; ++i) x[i] += d[i];
    }
    const vec xf = rmsnorm(x, at("model.norm.weight"), c_.rms_norm_eps);
    return matvec(at(c_.tie_word_embeddings ? "model.embed_tokens.weight" : "lm_head.weight"), xf, c_.vocab_size);
  }

 private:
  const std::vector<float>& at(const std::string& name) const {
    const auto it = w_.find(name);
    if (it == w_.end()) throw std::logic_error("reference: no weight " + name);
    return it->second;
  }
  const llm_config& c_;
  const host_weights& w_;
  std::vector<std::vector<vec>> k_, v_;  // [layer][position][kv_dim]
};

}  // namespace

reference_run reference_generate(const llm_config& c, const host_weights& w, const std::vector<std::int32_t>& prompt,
                                 int new_tokens) {
  if (prompt.empty()) throw std::invalid_argument("reference: empty prompt");
  reference_model m(c, w);
  vec logits;
  int pos = 0;
  for (std::int32_t t : prompt) logits = m.forward(t, pos++);
  reference_run out;
  out.first_logits = logits;
  for (int i = 0; i < new_tokens; ++i) {
    int best = 0, second = -1;
    for (int j = 1; j < c.vocab_size; ++j)
      if (logits[j] > logits[best]) best = j;
    for (int j = 0; j < c.vocab_size; ++j)
      if (j != best && (second < 0 || logits[j] > logits[second])) second = j;
    out.generated.push_back(best);
    out.top2_gap.push_back(second < 0 ? std::numeric_limits<double>::infinity() : logits[best] - logits[second]);
    if (i + 1 < new_tokens) logits = m.forward(best, pos++);
  }
  return out;
}

}  // namespace cudabench::llm
