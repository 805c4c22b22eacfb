// See reference_backward.hpp. A forward that keeps a tape (each sub-layer's inputs, q/k/v, the
// attention output before out_proj, linear1's pre-activation, the residual sums), then the chain
// rule backwards through it, written from the textbook formulas:
//   linear y = x W^T + b:   dx = dy W, dW += dy^T x, db += column sums of dy
//   LayerNorm:              dx = rstd * (dy*g - mean(dy*g) - xhat * mean(dy*g*xhat)),
//                           dgamma += dy * xhat, dbeta += dy
//   dropout, ReLU:          dy through the same mask (times the same scale), or where h > 0
//   softmax P, dropped Pd:  dV += Pd^T dO, dPd = dO V^T, dP = dropout(dPd),
//                           dS = P * (dP - sum_j P dP), dQ += scale dS K, dK += scale dS^T Q
// The tape's forward is separate from reference_forward (which stays the forward's independent
// reference); the unit test checks that both give the same output.
#include "workloads/transformer_memory/reference_backward.hpp"

#include <stdexcept>

#include "workloads/transformer_memory/reference_ops.hpp"

namespace cudabench::transformer {
namespace {

using namespace ref;  // NOLINT: the shared blocks, read as if local

vec& grad(weight_map& g, const std::string& prefix, const char* suffix) { return g.at(prefix + suffix); }

vec dropped(const dropper& d, vec x) {
  apply(d, x);
  return x;
}

// dx += dy W[row_off : row_off + out], dW[row_off + o] += dy^T x, db[row_off + o] += sum_r dy.
void linear_backward(const vec& x, const vec& dy, int rows, int in, const vec& W, int row_off, int out, vec& dx,
                     vec& dW, vec& db) {
  for (int r = 0; r < rows; ++r)
    for (int o = 0; o < out; ++o) {
      const double g = dy[static_cast<std::size_t>(r) * out + o];
      const std::size_t wr = static_cast<std::size_t>(row_off + o) * in, xr = static_cast<std::size_t>(r) * in;
      db[row_off + o] += g;
      for (int i = 0; i < in; ++i) {
        dx[xr + i] += g * W[wr + i];
        dW[wr + i] += g * x[xr + i];
      }
    }
}

// Returns dL/din of out = LayerNorm(in); accumulates dgamma, dbeta.
vec layernorm_backward(const vec& in, const vec& dy, int rows, int d, const vec& g, double eps, vec& dg, vec& db) {
  vec dx(in.size());
  vec xhat(d);
  for (int r = 0; r < rows; ++r) {
    const std::size_t o = static_cast<std::size_t>(r) * d;
    double mean = 0, var = 0;
    for (int i = 0; i < d; ++i) mean += in[o + i];
    mean /= d;
    for (int i = 0; i < d; ++i) var += (in[o + i] - mean) * (in[o + i] - mean);
    const double rstd = 1.0 / std::sqrt(var / d + eps);
    double m1 = 0, m2 = 0;
    for (int i = 0; i < d; ++i) {
      xhat[i] = (in[o + i] - mean) * rstd;
      const double dyg = dy[o + i] * g[i];
      dg[i] += dy[o + i] * xhat[i];
      db[i] += dy[o + i];
      m1 += dyg;
      m2 += dyg * xhat[i];
    }
    m1 /= d;
    m2 /= d;
    for (int i = 0; i < d; ++i) dx[o + i] = rstd * (dy[o + i] * g[i] - m1 - xhat[i] * m2);
  }
  return dx;
}

struct mha_tape {
  vec q, k, v, attn;  // projections [tokens, D] and the attention output before out_proj
};

// softmax_j(q_i . k_j * scale) of head hh, query row `qi`, keys of batch b, before dropout.
void probs_row(const config& c, const mha_tape& t, int b, int hh, std::size_t qi, int sk, vec& p) {
  const int d = c.d_model, hd = d / c.nhead;
  const double scale = 1.0 / std::sqrt(static_cast<double>(hd));
  double mx = -INFINITY;
  for (int j = 0; j < sk; ++j) {
    double s = 0;
    for (int e = 0; e < hd; ++e)
      s += t.q[qi * d + hh * hd + e] * t.k[(static_cast<std::size_t>(b) * sk + j) * d + hh * hd + e];
    p[j] = s * scale;
    mx = std::max(mx, p[j]);
  }
  double sum = 0;
  for (int j = 0; j < sk; ++j) sum += (p[j] = std::exp(p[j] - mx));
  for (int j = 0; j < sk; ++j) p[j] /= sum;
}

// MultiheadAttention(xq, xkv, xkv) through out_proj, keeping the tape.
vec mha_forward(const config& c, const weight_map& m, const std::string& p, const vec& xq, int sq, const vec& xkv,
                int sk, const dropper& probs, mha_tape& t) {
  const int d = c.d_model, hd = d / c.nhead, bq = c.batch * sq, bk = c.batch * sk;
  const vec& win = w(m, p, ".in_proj_weight");
  const vec& bin = w(m, p, ".in_proj_bias");
  t.q = linear(xq, bq, d, win, bin, 0, d);
  t.k = linear(xkv, bk, d, win, bin, d, d);
  t.v = linear(xkv, bk, d, win, bin, 2 * d, d);
  t.attn.assign(static_cast<std::size_t>(bq) * d, 0.0);
  vec pr(sk);
  for (int b = 0; b < c.batch; ++b)
    for (int hh = 0; hh < c.nhead; ++hh)
      for (int i = 0; i < sq; ++i) {
        const std::size_t qi = static_cast<std::size_t>(b) * sq + i;
        probs_row(c, t, b, hh, qi, sk, pr);
        const std::uint64_t row = (static_cast<std::uint64_t>(b) * c.nhead + hh) * sq + i;
        for (int j = 0; j < sk; ++j) {
          const double pj = probs(pr[j], row * sk + j);
          for (int e = 0; e < hd; ++e)
            t.attn[qi * d + hh * hd + e] += pj * t.v[(static_cast<std::size_t>(b) * sk + j) * d + hh * hd + e];
        }
      }
  return linear(t.attn, bq, d, w(m, p, ".out_proj.weight"), w(m, p, ".out_proj.bias"), 0, d);
}

// dout: dL/d(out_proj output). Adds dL/dxq into dxq and dL/dxkv into dxkv (the same vector for
// self-attention).
void mha_backward(const config& c, const weight_map& m, weight_map& g, const std::string& p, const mha_tape& t,
                  const vec& dout, const vec& xq, int sq, const vec& xkv, int sk, const dropper& probs, vec& dxq,
                  vec& dxkv) {
  const int d = c.d_model, hd = d / c.nhead, bq = c.batch * sq, bk = c.batch * sk;
  const double scale = 1.0 / std::sqrt(static_cast<double>(hd));
  vec dattn(t.attn.size(), 0.0);
  linear_backward(t.attn, dout, bq, d, w(m, p, ".out_proj.weight"), 0, d, dattn, grad(g, p, ".out_proj.weight"),
                  grad(g, p, ".out_proj.bias"));
  vec dq(t.q.size(), 0.0), dk(t.k.size(), 0.0), dv(t.v.size(), 0.0), pr(sk), dp(sk);
  for (int b = 0; b < c.batch; ++b)
    for (int hh = 0; hh < c.nhead; ++hh)
      for (int i = 0; i < sq; ++i) {
        const std::size_t qi = static_cast<std::size_t>(b) * sq + i, ho = hh * hd;
        probs_row(c, t, b, hh, qi, sk, pr);
        const std::uint64_t row = (static_cast<std::uint64_t>(b) * c.nhead + hh) * sq + i;
        double dot = 0;  // sum_j P_j dP_j
        for (int j = 0; j < sk; ++j) {
          const std::size_t kj = (static_cast<std::size_t>(b) * sk + j) * d + ho;
          double dpd = 0;
          for (int e = 0; e < hd; ++e) {
            dpd += dattn[qi * d + ho + e] * t.v[kj + e];
            dv[kj + e] += probs(pr[j], row * sk + j) * dattn[qi * d + ho + e];
          }
          dp[j] = probs(dpd, row * sk + j);
          dot += pr[j] * dp[j];
        }
        for (int j = 0; j < sk; ++j) {
          const std::size_t kj = (static_cast<std::size_t>(b) * sk + j) * d + ho;
          const double ds = pr[j] * (dp[j] - dot) * scale;
          for (int e = 0; e < hd; ++e) {
            dq[qi * d + ho + e] += ds * t.k[kj + e];
            dk[kj + e] += ds * t.q[qi * d + ho + e];
          }
        }
      }
  const vec& win = w(m, p, ".in_proj_weight");
  vec& dwin = grad(g, p, ".in_proj_weight");
  vec& dbin = grad(g, p, ".in_proj_bias");
  linear_backward(xq, dq, bq, d, win, 0, d, dxq, dwin, dbin);
  linear_backward(xkv, dk, bk, d, win, d, d, dxkv, dwin, dbin);
  linear_backward(xkv, dv, bk, d, win, 2 * d, d, dxkv, dwin, dbin);
}

struct ffn_tape {
  vec h, hidden;                       // linear1's output before ReLU; linear2's input (ReLU, then dropout)
  std::vector<std::uint8_t> positive;  // the branch the backward follows: h > 0, or a caller's (adopt_branches)
};

vec ffn_forward(const config& c, const weight_map& m, const std::string& p, const vec& x, int rows, const dropper& drop,
                ffn_tape& t) {
  t.h = linear(x, rows, c.d_model, w(m, p, "linear1.weight"), w(m, p, "linear1.bias"), 0, c.dim_feedforward);
  t.hidden = t.h;
  for (double& e : t.hidden) e = std::max(e, 0.0);
  t.positive.resize(t.h.size());
  for (std::size_t i = 0; i < t.h.size(); ++i) t.positive[i] = t.h[i] > 0;
  apply(drop, t.hidden);
  return linear(t.hidden, rows, c.dim_feedforward, w(m, p, "linear2.weight"), w(m, p, "linear2.bias"), 0, c.d_model);
}

void ffn_backward(const config& c, const weight_map& m, weight_map& g, const std::string& p, const ffn_tape& t,
                  const vec& dout, const vec& x, int rows, const dropper& drop, vec& dx) {
  vec dhidden(t.hidden.size(), 0.0);
  linear_backward(t.hidden, dout, rows, c.dim_feedforward, w(m, p, "linear2.weight"), 0, c.d_model, dhidden,
                  grad(g, p, "linear2.weight"), grad(g, p, "linear2.bias"));
  for (std::size_t i = 0; i < dhidden.size(); ++i) dhidden[i] = t.positive[i] ? drop(dhidden[i], i) : 0.0;
  linear_backward(x, dhidden, rows, c.d_model, w(m, p, "linear1.weight"), 0, c.dim_feedforward, dx,
                  grad(g, p, "linear1.weight"), grad(g, p, "linear1.bias"));
}

// out = norm(x + dropout(y)); keeps the sum (LayerNorm's input).
vec add_norm(const config& c, const weight_map& m, const std::string& p, const vec& x, const vec& y,
             const dropper& drop, int rows, vec& sum) {
  sum = x;
  for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += drop(y[i], i);
  vec out = sum;
  layernorm(out, rows, c.d_model, w(m, p, ".weight"), w(m, p, ".bias"), c.ln_eps);
  return out;
}

vec norm_backward(const config& c, const weight_map& m, weight_map& g, const std::string& p, const vec& in,
                  const vec& dy, int rows) {
  return layernorm_backward(in, dy, rows, c.d_model, w(m, p, ".weight"), c.ln_eps, grad(g, p, ".weight"),
                            grad(g, p, ".bias"));
}

struct encoder_tape {
  vec x0, sum1, x1, sum2;
  mha_tape sa;
  ffn_tape ff;
};
struct decoder_tape {
  vec y0, sum1, y1, sum2, y2, sum3;
  mha_tape sa, ca;
  ffn_tape ff;
};

std::string layer_prefix(bool decoder, int i) {
  return (decoder ? "decoder.layers." : "encoder.layers.") + std::to_string(i) + ".";
}

vec encoder_forward(const config& c, const weight_map& m, int i, const vec& x, encoder_tape& t) {
  const std::string p = layer_prefix(false, i);
  const int rows = c.batch * c.src_len;
  t.x0 = x;
  const vec a = mha_forward(c, m, p + "self_attn", x, c.src_len, x, c.src_len,
                            dropout_for(c, i, dropout_site::self_attention_probs), t.sa);
  t.x1 = add_norm(c, m, p + "norm1", x, a, dropout_for(c, i, dropout_site::self_attention_out), rows, t.sum1);
  const vec f = ffn_forward(c, m, p, t.x1, rows, dropout_for(c, i, dropout_site::ffn_hidden), t.ff);
  return add_norm(c, m, p + "norm2", t.x1, f, dropout_for(c, i, dropout_site::ffn_out), rows, t.sum2);
}

vec encoder_backward(const config& c, const weight_map& m, weight_map& g, int i, const encoder_tape& t, const vec& dy) {
  const std::string p = layer_prefix(false, i);
  const int rows = c.batch * c.src_len;
  vec dx1 = norm_backward(c, m, g, p + "norm2", t.sum2, dy, rows);
  ffn_backward(c, m, g, p, t.ff, dropped(dropout_for(c, i, dropout_site::ffn_out), dx1), t.x1, rows,
               dropout_for(c, i, dropout_site::ffn_hidden), dx1);
  vec dx0 = norm_backward(c, m, g, p + "norm1", t.sum1, dx1, rows);
  const vec da = dropped(dropout_for(c, i, dropout_site::self_attention_out), dx0);
  mha_backward(c, m, g, p + "self_attn", t.sa, da, t.x0, c.src_len, t.x0, c.src_len,
               dropout_for(c, i, dropout_site::self_attention_probs), dx0, dx0);
  return dx0;
}

vec decoder_forward(const config& c, const weight_map& m, int i, const vec& y, const vec& memory, decoder_tape& t) {
  const std::string p = layer_prefix(true, i);
  const int rows = c.batch * c.tgt_len, l = c.encoder_layers + i;
  t.y0 = y;
  const vec a = mha_forward(c, m, p + "self_attn", y, c.tgt_len, y, c.tgt_len,
                            dropout_for(c, l, dropout_site::self_attention_probs), t.sa);
  t.y1 = add_norm(c, m, p + "norm1", y, a, dropout_for(c, l, dropout_site::self_attention_out), rows, t.sum1);
  const vec ca = mha_forward(c, m, p + "multihead_attn", t.y1, c.tgt_len, memory, c.src_len,
                             dropout_for(c, l, dropout_site::cross_attention_probs), t.ca);
  t.y2 = add_norm(c, m, p + "norm2", t.y1, ca, dropout_for(c, l, dropout_site::cross_attention_out), rows, t.sum2);
  const vec f = ffn_forward(c, m, p, t.y2, rows, dropout_for(c, l, dropout_site::ffn_hidden), t.ff);
  return add_norm(c, m, p + "norm3", t.y2, f, dropout_for(c, l, dropout_site::ffn_out), rows, t.sum3);
}

// Returns dL/dy0; adds dL/dmemory into dmemory.
vec decoder_backward(const config& c, const weight_map& m, weight_map& g, int i, const decoder_tape& t,
                     const vec& memory, const vec& dy, vec& dmemory) {
  const std::string p = layer_prefix(true, i);
  const int rows = c.batch * c.tgt_len, l = c.encoder_layers + i;
  vec dy2 = norm_backward(c, m, g, p + "norm3", t.sum3, dy, rows);
  ffn_backward(c, m, g, p, t.ff, dropped(dropout_for(c, l, dropout_site::ffn_out), dy2), t.y2, rows,
               dropout_for(c, l, dropout_site::ffn_hidden), dy2);
  vec dy1 = norm_backward(c, m, g, p + "norm2", t.sum2, dy2, rows);
  mha_backward(c, m, g, p + "multihead_attn", t.ca, dropped(dropout_for(c, l, dropout_site::cross_attention_out), dy1),
               t.y1, c.tgt_len, memory, c.src_len, dropout_for(c, l, dropout_site::cross_attention_probs), dy1,
               dmemory);
  vec dy0 = norm_backward(c, m, g, p + "norm1", t.sum1, dy1, rows);
  const vec da = dropped(dropout_for(c, l, dropout_site::self_attention_out), dy0);
  mha_backward(c, m, g, p + "self_attn", t.sa, da, t.y0, c.tgt_len, t.y0, c.tgt_len,
               dropout_for(c, l, dropout_site::self_attention_probs), dy0, dy0);
  return dy0;
}

// Records block `prefix`'s ReLU inputs in r and, given `branches`, makes the tape follow them,
// counting where they differ from the double inputs' signs (reference_backward.hpp says why).
void adopt_branches(const std::string& prefix, ffn_tape& t, const relu_branches* branches, reference_gradients& r) {
  r.relu_inputs[prefix] = t.h;
  if (!branches) return;
  const auto it = branches->find(prefix);
  if (it == branches->end())
    throw std::invalid_argument("reference_backward: no ReLU branches for the feed-forward block " + prefix);
  if (it->second.size() != t.h.size())
    throw std::invalid_argument("reference_backward: " + std::to_string(it->second.size()) +
                                " ReLU branches for the feed-forward block " + prefix + ", which has " +
                                std::to_string(t.h.size()) + " inputs");
  double scale = 0;
  for (double e : t.h) scale = std::max(scale, std::fabs(e));
  for (std::size_t i = 0; i < t.h.size(); ++i) {
    const std::uint8_t taken = it->second[i] != 0;
    if (taken == t.positive[i]) continue;
    ++r.relu_flips;
    r.relu_flip_margin = std::max(r.relu_flip_margin, std::fabs(t.h[i]) / (scale > 0 ? scale : 1.0));
    t.positive[i] = taken;
  }
}

}  // namespace

reference_gradients reference_backward(const config& c, const weight_map& m, const vec& src, const vec& tgt,
                                       const vec& grad_out, const relu_branches* branches) {
  const int ms = c.batch * c.src_len, mt = c.batch * c.tgt_len;
  std::vector<encoder_tape> et(c.encoder_layers);
  std::vector<decoder_tape> dt(c.decoder_layers);
  vec x = src;
  for (int i = 0; i < c.encoder_layers; ++i) x = encoder_forward(c, m, i, x, et[i]);
  const vec enc_last = x;
  layernorm(x, ms, c.d_model, w(m, "encoder.norm", ".weight"), w(m, "encoder.norm", ".bias"), c.ln_eps);
  const vec memory = x;
  vec y = tgt;
  for (int i = 0; i < c.decoder_layers; ++i) y = decoder_forward(c, m, i, y, memory, dt[i]);
  const vec dec_last = y;
  layernorm(y, mt, c.d_model, w(m, "decoder.norm", ".weight"), w(m, "decoder.norm", ".bias"), c.ln_eps);

  reference_gradients r;
  r.output = y;
  for (int i = 0; i < c.encoder_layers; ++i) adopt_branches(layer_prefix(false, i), et[i].ff, branches, r);
  for (int i = 0; i < c.decoder_layers; ++i) adopt_branches(layer_prefix(true, i), dt[i].ff, branches, r);
  for (const auto& [name, v] : m) r.params[name].assign(v.size(), 0.0);
  vec dy = norm_backward(c, m, r.params, "decoder.norm", dec_last, grad_out, mt);
  vec dmemory(memory.size(), 0.0);
  for (int i = c.decoder_layers - 1; i >= 0; --i) dy = decoder_backward(c, m, r.params, i, dt[i], memory, dy, dmemory);
  vec dx = norm_backward(c, m, r.params, "encoder.norm", enc_last, dmemory, ms);
  for (int i = c.encoder_layers - 1; i >= 0; --i) dx = encoder_backward(c, m, r.params, i, et[i], dx);
  return r;
}

}  // namespace cudabench::transformer
