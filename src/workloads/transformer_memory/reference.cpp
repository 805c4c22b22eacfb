// See reference.hpp. Written from the PyTorch formulas, not from the GPU code: separate Q, K, V
// projections, an explicit score matrix per (batch, head, query) and a max-subtracted softmax.
// In train mode the dropout masks are drawn from the same hash as the kernels (dropout_rng.hpp).
#include "workloads/transformer_memory/reference.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "workloads/transformer_memory/reference_ops.hpp"

namespace cudabench::transformer {
namespace {

using namespace ref;  // NOLINT: the shared blocks, read as if local

// torch.nn.MultiheadAttention(query=xq, key=xkv, value=xkv), no mask; `probs` drops attention
// probabilities (train mode), element index ((b * heads + h) * sq + i) * sk + j.
vec mha(const config& c, const weight_map& m, const std::string& p, const vec& xq, int sq, const vec& xkv, int sk,
        const dropper& probs = {}) {
  const int d = c.d_model, h = c.nhead, hd = d / h, bq = c.batch * sq, bk = c.batch * sk;
  const vec& win = w(m, p, ".in_proj_weight");
  const vec& bin = w(m, p, ".in_proj_bias");
  const vec q = linear(xq, bq, d, win, bin, 0, d);
  const vec k = linear(xkv, bk, d, win, bin, d, d);
  const vec v = linear(xkv, bk, d, win, bin, 2 * d, d);
  vec attn(static_cast<std::size_t>(bq) * d, 0.0);
  vec score(sk);
  const double scale = 1.0 / std::sqrt(static_cast<double>(hd));
  for (int b = 0; b < c.batch; ++b)
    for (int hh = 0; hh < h; ++hh)
      for (int i = 0; i < sq; ++i) {
        const double* qi = &q[(static_cast<std::size_t>(b) * sq + i) * d + hh * hd];
        double mx = -INFINITY;
        for (int j = 0; j < sk; ++j) {
          const double* kj = &k[(static_cast<std::size_t>(b) * sk + j) * d + hh * hd];
          double s = 0;
          for (int e = 0; e < hd; ++e) s += qi[e] * kj[e];
          score[j] = s * scale;
          mx = std::max(mx, score[j]);
        }
        double sum = 0;
        for (int j = 0; j < sk; ++j) sum += (score[j] = std::exp(score[j] - mx));
        double* out = &attn[(static_cast<std::size_t>(b) * sq + i) * d + hh * hd];
        const std::uint64_t row = (static_cast<std::uint64_t>(b) * h + hh) * sq + i;
        for (int j = 0; j < sk; ++j) {
          const double* vj = &v[(static_cast<std::size_t>(b) * sk + j) * d + hh * hd];
          const double pj = probs(score[j] / sum, row * sk + j);
          for (int e = 0; e < hd; ++e) out[e] += pj * vj[e];
        }
      }
  return linear(attn, bq, d, w(m, p, ".out_proj.weight"), w(m, p, ".out_proj.bias"), 0, d);
}

vec ffn(const config& c, const weight_map& m, const std::string& p, const vec& x, int rows,
        const dropper& hidden = {}) {
  vec hdn = linear(x, rows, c.d_model, w(m, p, "linear1.weight"), w(m, p, "linear1.bias"), 0, c.dim_feedforward);
  for (double& e : hdn) e = std::max(e, 0.0);
  apply(hidden, hdn);
  return linear(hdn, rows, c.dim_feedforward, w(m, p, "linear2.weight"), w(m, p, "linear2.bias"), 0, c.d_model);
}

// x += dropout(y): the residual add of every sub-layer.
void add_into(vec& x, const vec& y, const dropper& d = {}) {
  for (std::size_t i = 0; i < x.size(); ++i) x[i] += d(y[i], i);
}

void norm(const config& c, const weight_map& m, const std::string& p, vec& x, int rows) {
  layernorm(x, rows, c.d_model, w(m, p, ".weight"), w(m, p, ".bias"), c.ln_eps);
}

}  // namespace

std::vector<double> reference_forward(const config& c, const weight_map& m, const vec& src, const vec& tgt) {
  const int ms = c.batch * c.src_len, mt = c.batch * c.tgt_len;
  vec x = src;
  for (int i = 0; i < c.encoder_layers; ++i) {
    const std::string p = "encoder.layers." + std::to_string(i) + ".";
    add_into(x,
             mha(c, m, p + "self_attn", x, c.src_len, x, c.src_len,
                 dropout_for(c, i, dropout_site::self_attention_probs)),
             dropout_for(c, i, dropout_site::self_attention_out));
    norm(c, m, p + "norm1", x, ms);
    add_into(x, ffn(c, m, p, x, ms, dropout_for(c, i, dropout_site::ffn_hidden)),
             dropout_for(c, i, dropout_site::ffn_out));
    norm(c, m, p + "norm2", x, ms);
  }
  norm(c, m, "encoder.norm", x, ms);
  const vec memory = x;
  vec y = tgt;
  for (int i = 0; i < c.decoder_layers; ++i) {
    const std::string p = "decoder.layers." + std::to_string(i) + ".";
    const int l = c.encoder_layers + i;  // decoder layers' dropout sites follow the encoder's
    add_into(y,
             mha(c, m, p + "self_attn", y, c.tgt_len, y, c.tgt_len,
                 dropout_for(c, l, dropout_site::self_attention_probs)),
             dropout_for(c, l, dropout_site::self_attention_out));
    norm(c, m, p + "norm1", y, mt);
    add_into(y,
             mha(c, m, p + "multihead_attn", y, c.tgt_len, memory, c.src_len,
                 dropout_for(c, l, dropout_site::cross_attention_probs)),
             dropout_for(c, l, dropout_site::cross_attention_out));
    norm(c, m, p + "norm2", y, mt);
    add_into(y, ffn(c, m, p, y, mt, dropout_for(c, l, dropout_site::ffn_hidden)),
             dropout_for(c, l, dropout_site::ffn_out));
    norm(c, m, p + "norm3", y, mt);
  }
  norm(c, m, "decoder.norm", y, mt);
  return y;
}

}  // namespace cudabench::transformer
