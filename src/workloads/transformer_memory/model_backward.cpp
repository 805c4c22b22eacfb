// model's backward (model.hpp, config::backward): L = sum(output * G), back through
// nn.Transformer's training-mode forward, reading only what that forward saved
// (saved_tensors.hpp) -- the attention's probabilities are regenerated from q, k and the saved
// logsumexp (attention_backward.cuh), as PyTorch's memory-efficient SDPA backward does. Per
// post-norm sub-layer, from dy = dL/d(its LayerNorm output):
//   dsum = LayerNorm backward (saved sum, mean, rstd)          -> also the residual's gradient
//   dz   = dropout backward (saved mask)                       -> z: out_proj's / linear2's output
//   out_proj / linear2:  dW += dz^T (saved input), db += col sums, d(input) = dz W
//   attention: dq, dk, dv (saved q, k, v, output, logsumexp) -> in_proj: dW, db, dx += dqkv W
//   feed-forward: ReLU+dropout backward (saved ReLU output, mask) -> linear1: dW, db, dx += dh W
// Linear layers' gradients are cuBLASLt GEMMs in true fp32 (as the forward's) over all tokens at
// once; dx accumulates onto the residual's gradient with beta = 1. The memory's gradient sums
// over the decoder layers' cross-attentions, then goes through encoder.norm into the encoder.
// src's and tgt's gradients are not computed (they need none, as in PyTorch).
#include <algorithm>
#include <map>
#include <stdexcept>
#include <tuple>
#include <vector>

#include <fmt/format.h>

#include "cudabench/errors.hpp"
#include "cudabench/gpu/cuda_check.hpp"
#include "kernels/common/random_fill.cuh"
#include "kernels/transformer_memory/attention_backward.cuh"
#include "kernels/transformer_memory/backward_ops.cuh"
#include "workloads/transformer_memory/model.hpp"
#include "workloads/transformer_memory/saved_index.hpp"

namespace cudabench::transformer {
namespace {

using namespace saved_index;  // NOLINT: the indices read as local names
namespace kt = kernels::transformer_memory;

const float k_one = 1.f, k_zero = 0.f;

std::int64_t longest_tokens(const config& c) { return std::max(c.src_tokens(), c.tgt_tokens()); }

// Activation-gradient buffers, in floats (model::backward_bytes sums them).
struct buffer_sizes {
  std::int64_t a, b, c, attn, qkv, hidden, memory, out, delta;
};
buffer_sizes sizes_of(const config& cfg) {
  const std::int64_t d = cfg.d_model, t = longest_tokens(cfg);
  buffer_sizes s;
  s.a = s.b = s.attn = t * d;
  s.c = cfg.dropout > 0 ? t * d : 0;  // the dropout's backward output; at p = 0 dz is dsum itself
  s.qkv = std::max(3 * t * d, cfg.tgt_tokens() * d + 2 * cfg.src_tokens() * d);
  // The hidden layer's gradient [T, F]. At p > 0 it needs no buffer of its own: it overwrites the
  // hidden dropout's saved output (linear2's input) once linear2's weight gradient has read it --
  // nothing reads that tensor later in the backward, and the next forward writes it anew (PyTorch's
  // autograd frees it at the same point). At p = 0 linear2's input is the ReLU output, which the
  // ReLU's backward still reads.
  s.hidden = cfg.dropout > 0 ? 0 : t * cfg.dim_feedforward;
  s.memory = cfg.src_tokens() * d;
  s.out = cfg.tgt_tokens() * d;
  s.delta = std::int64_t{cfg.batch} * cfg.nhead * std::max(cfg.src_len, cfg.tgt_len);
  return s;
}

float* as_float(const void* p) { return static_cast<float*>(const_cast<void*>(p)); }
const float* offset(const void* p, std::int64_t elems) { return static_cast<const float*>(p) + elems; }

}  // namespace

struct model::backward_state {
  // Keyed by (weight_grad, m, n, k): a few shapes serve every layer (pointers are run arguments).
  std::map<std::tuple<bool, std::int64_t, std::int64_t, std::int64_t>, std::unique_ptr<lt_matmul>> gemms;
  device_buffer<float> a, b, c, attn, qkv, hidden, memory, delta;
};

std::uint64_t model::backward_bytes(const config& c) {
  std::uint64_t params = 0;
  for (const auto& e : param_table(c)) params += (e.numel + 63) / 64 * 64;
  const buffer_sizes s = sizes_of(c);
  const std::int64_t acts = s.a + s.b + s.c + s.attn + s.qkv + s.hidden + s.memory + s.out + s.delta;
  return (params + static_cast<std::uint64_t>(acts)) * sizeof(float);
}

void model::allocate_backward() {
  if (cfg_.dtype != dtype::fp32) throw unsupported_error("transformer: backward is implemented for fp32 only");
  const buffer_sizes sz = sizes_of(cfg_);
  grads_ = device_buffer<std::byte>(params_.total_elems() * sizeof(float));
  grad_out_ = device_buffer<std::byte>(static_cast<std::size_t>(sz.out) * sizeof(float));
  auto st = std::make_shared<backward_state>();
  auto n = [](std::int64_t e) { return static_cast<std::size_t>(e); };
  st->a = device_buffer<float>(n(sz.a));
  st->b = device_buffer<float>(n(sz.b));
  st->c = device_buffer<float>(n(sz.c));
  st->attn = device_buffer<float>(n(sz.attn));
  st->qkv = device_buffer<float>(n(sz.qkv));
  st->hidden = device_buffer<float>(n(sz.hidden));
  st->memory = device_buffer<float>(n(sz.memory));
  st->delta = device_buffer<float>(n(sz.delta));
  const std::int64_t d = cfg_.d_model, f = cfg_.dim_feedforward;
  // Every (m, n, k) the backward runs, for dX = dY W (m x k from m x n) and dW += dY^T X.
  std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>> shapes;
  for (const std::int64_t t : {cfg_.src_tokens(), cfg_.tgt_tokens()}) {
    shapes.insert(shapes.end(), {{t, d, d}, {t, 3 * d, d}, {t, d, f}, {t, f, d}});
  }
  shapes.push_back({cfg_.src_tokens(), 2 * d, d});  // cross-attention's K, V from the memory
  for (const auto& [m, nn, kk] : shapes)
    for (const bool wg : {false, true}) {
      auto key = std::make_tuple(wg, m, nn, kk);
      if (st->gemms.count(key)) continue;
      gemm_shape g;
      if (wg) {  // dW[n,k] += dY[m,n]^T X[m,k]: column-major dW^T[k,n] = X^T[k,m] * dY[m,n]
        g.trans_a = CUBLAS_OP_N;
        g.trans_b = CUBLAS_OP_T;
        g.m = kk;
        g.n = nn;
        g.k = m;
        g.lda = kk;
        g.ldb = nn;
        g.ldc = kk;
      } else {  // dX[m,k] = dY[m,n] W[n,k]: column-major dX^T[k,m] = W^T[k,n] * dY^T[n,m]
        g.trans_a = CUBLAS_OP_N;
        g.trans_b = CUBLAS_OP_N;
        g.m = kk;
        g.n = m;
        g.k = nn;
        g.lda = kk;
        g.ldb = nn;
        g.ldc = kk;
      }
      st->gemms.emplace(key, std::make_unique<lt_matmul>(lt_, g, gemm_types_of(dtype::fp32)));
    }
  bw_ = std::move(st);
}

void model::fill_grad_output(std::uint64_t seed, cudaStream_t stream) {
  kernels::fill_uniform(grad_output(), static_cast<std::size_t>(cfg_.tgt_tokens()) * cfg_.d_model, seed, -1.f, 1.f,
                        stream);
}

float* model::gradient(const std::string& name) const {
  if (!bw_) throw std::logic_error("transformer: gradient() without backward");
  return reinterpret_cast<float*>(grads_.get()) + params_.entry(name).offset;
}

float* model::grad_of(const void* param) const {
  const auto elems = (static_cast<const std::byte*>(param) - static_cast<const std::byte*>(params_.arena())) /
                     static_cast<std::ptrdiff_t>(sizeof(float));
  return reinterpret_cast<float*>(grads_.get()) + elems;
}

const lt_matmul& model::backward_gemm(bool weight_grad, std::int64_t m, std::int64_t n, std::int64_t k) const {
  const auto it = bw_->gemms.find(std::make_tuple(weight_grad, m, n, k));
  if (it == bw_->gemms.end())
    throw std::logic_error(
        fmt::format("transformer backward: no GEMM planned for {} {}x{}x{}", weight_grad ? "dW" : "dX", m, n, k));
  return *it->second;
}

// dX[m,k] (+)= dY[m,n] W[n,k].
void model::input_grad(const float* dy, const void* w, float* dx, std::int64_t m, std::int64_t n, std::int64_t k,
                       bool accumulate, cudaStream_t s) const {
  backward_gemm(false, m, n, k).run(&k_one, w, dy, accumulate ? &k_one : &k_zero, dx, dx, s);
}

// dW[n,k] += dY[m,n]^T X[m,k]; db[n] += column sums of dY. `w`, `b`: the parameters.
void model::weight_grad(const float* dy, const void* x, const void* w, const void* b, std::int64_t m, std::int64_t n,
                        std::int64_t k, cudaStream_t s) const {
  float* dw = grad_of(w);
  backward_gemm(true, m, n, k).run(&k_one, x, dy, &k_one, dw, dw, s);
  kt::column_sums(dy, m, static_cast<int>(n), grad_of(b), s);
}

const float* model::norm_backward(const norm_ptrs& n, const void* in, const float* stats, const float* dy, float* dx,
                                  std::int64_t rows, cudaStream_t s) const {
  kt::layernorm_backward(static_cast<const float*>(in), dy, static_cast<const float*>(n.gamma), stats, stats + rows, dx,
                         grad_of(n.gamma), grad_of(n.beta), rows, cfg_.d_model, s);
  return dx;
}

// dz = dropout backward of the sub-layer output's mask; at p = 0 (no mask) dz is dsum itself.
const float* model::dropout_backward_of(const saved_block& sv, std::size_t tail, const float* dsum, std::int64_t n,
                                        cudaStream_t s) const {
  const auto* mask = static_cast<const std::uint8_t*>(sv.at(tail + tail_mask));
  if (!mask) return dsum;
  kt::dropout_backward(dsum, mask, static_cast<float>(1.0 / (1.0 - cfg_.dropout)), bw_->c.get(), n, s);
  return bw_->c.get();
}

void model::self_attention_backward(const attention_block& a, const saved_block& sv, const norm_ptrs& n, const void* x,
                                    int seq, int site_layer, const float* dy, float* dx, bool need_dx,
                                    cudaStream_t s) const {
  const std::int64_t d = cfg_.d_model, t = std::int64_t{cfg_.batch} * seq;
  norm_backward(n, sv.at(sa_tail + tail_sum), sv.stats(sa_tail + tail_stats), dy, dx, t, s);
  const float* dz = dropout_backward_of(sv, sa_tail, dx, t * d, s);
  weight_grad(dz, sv.at(sa_proj_in), a.w_out, a.b_out, t, d, d, s);
  input_grad(dz, a.w_out, bw_->attn.get(), t, d, d, false, s);
  kt::attention_backward_args g;
  g.q = static_cast<const float*>(sv.at(sa_qkv));
  g.k = g.q + d;
  g.v = g.q + 2 * d;
  g.o = static_cast<const float*>(sv.at(sa_out));
  g.dout = bw_->attn.get();
  g.lse = sv.stats(sa_lse);
  g.lse_stride = (seq + 31) / 32 * 32;
  g.dq = bw_->qkv.get();
  g.dk = g.dq + d;
  g.dv = g.dq + 2 * d;
  g.delta = bw_->delta.get();
  g.ldq = g.ldk = g.ldv = g.lddq = g.lddk = g.lddv = 3 * d;
  g.ldo = g.lddo = d;
  g.batch = cfg_.batch;
  g.heads = cfg_.nhead;
  g.head_dim = cfg_.head_dim();
  g.sq = g.sk = seq;
  const kt::dropout_params pd = dropout_at(site_layer, dropout_site::self_attention_probs, nullptr, 0);
  g.dropout_threshold = pd.threshold;
  g.dropout_scale = pd.scale;
  g.dropout_seed = pd.seed;
  kt::attention_backward(g, s);
  weight_grad(bw_->qkv.get(), x, a.w_in, a.b_in, t, 3 * d, d, s);
  if (need_dx) input_grad(bw_->qkv.get(), a.w_in, dx, t, 3 * d, d, true, s);
}

void model::cross_attention_backward(const attention_block& a, const saved_block& sv, const norm_ptrs& n, const void* y,
                                     const void* memory, int site_layer, const float* dy, float* dx,
                                     cudaStream_t s) const {
  const std::int64_t d = cfg_.d_model, tt = cfg_.tgt_tokens(), ts = cfg_.src_tokens();
  norm_backward(n, sv.at(ca_tail + tail_sum), sv.stats(ca_tail + tail_stats), dy, dx, tt, s);
  const float* dz = dropout_backward_of(sv, ca_tail, dx, tt * d, s);
  weight_grad(dz, sv.at(ca_proj_in), a.w_out, a.b_out, tt, d, d, s);
  input_grad(dz, a.w_out, bw_->attn.get(), tt, d, d, false, s);
  float* dq = bw_->qkv.get();
  float* dkv = dq + tt * d;
  kt::attention_backward_args g;
  g.q = static_cast<const float*>(sv.at(ca_q));
  g.k = static_cast<const float*>(sv.at(ca_kv));
  g.v = g.k + d;
  g.o = static_cast<const float*>(sv.at(ca_out));
  g.dout = bw_->attn.get();
  g.lse = sv.stats(ca_lse);
  g.lse_stride = (cfg_.tgt_len + 31) / 32 * 32;
  g.dq = dq;
  g.dk = dkv;
  g.dv = dkv + d;
  g.delta = bw_->delta.get();
  g.ldq = g.lddq = g.ldo = g.lddo = d;
  g.ldk = g.ldv = g.lddk = g.lddv = 2 * d;
  g.batch = cfg_.batch;
  g.heads = cfg_.nhead;
  g.head_dim = cfg_.head_dim();
  g.sq = cfg_.tgt_len;
  g.sk = cfg_.src_len;
  const kt::dropout_params pd = dropout_at(site_layer, dropout_site::cross_attention_probs, nullptr, 0);
  g.dropout_threshold = pd.threshold;
  g.dropout_scale = pd.scale;
  g.dropout_seed = pd.seed;
  kt::attention_backward(g, s);
  // Q came from rows [0, D) of in_proj and the stream; K, V from rows [D, 3D) and the memory.
  const float* w_kv = offset(a.w_in, d * d);
  const float* b_kv = offset(a.b_in, d);
  weight_grad(dq, y, a.w_in, a.b_in, tt, d, d, s);
  weight_grad(dkv, memory, w_kv, b_kv, ts, 2 * d, d, s);
  input_grad(dq, a.w_in, dx, tt, d, d, true, s);
  input_grad(dkv, w_kv, bw_->memory.get(), ts, 2 * d, d, true, s);
}

void model::feed_forward_backward(const ffn_block& f, const saved_block& sv, const norm_ptrs& n, const void* x, int seq,
                                  const float* dy, float* dx, cudaStream_t s) const {
  const std::int64_t d = cfg_.d_model, ff = cfg_.dim_feedforward, t = std::int64_t{cfg_.batch} * seq;
  norm_backward(n, sv.at(ff_tail + tail_sum), sv.stats(ff_tail + tail_stats), dy, dx, t, s);
  const float* dz = dropout_backward_of(sv, ff_tail, dx, t * d, s);
  const void* hidden = cfg_.dropout > 0 ? sv.at(ff_drop) : sv.at(ff_relu);  // linear2's input
  float* dh = cfg_.dropout > 0 ? as_float(hidden) : bw_->hidden.get();      // see sizes_of: after dW reads it
  weight_grad(dz, hidden, f.w_down, f.b_down, t, d, ff, s);
  input_grad(dz, f.w_down, dh, t, d, ff, false, s);
  kt::relu_dropout_backward(dh, static_cast<const float*>(sv.at(ff_relu)),
                            static_cast<const std::uint8_t*>(sv.at(ff_mask)),
                            static_cast<float>(1.0 / (1.0 - cfg_.dropout)), t * ff, s);
  weight_grad(dh, x, f.w_up, f.b_up, t, ff, d, s);
  input_grad(dh, f.w_up, dx, t, ff, d, true, s);
}

void model::backward(cudaStream_t s) const {
  if (!bw_) throw std::logic_error("transformer: backward() on a model built without cfg.backward");
  CUDABENCH_CHECK_CUDA(cudaMemsetAsync(grads_.get(), 0, grads_.bytes(), s));
  CUDABENCH_CHECK_CUDA(cudaMemsetAsync(bw_->memory.get(), 0, bw_->memory.bytes(), s));
  const std::int64_t ms = cfg_.src_tokens(), mt = cfg_.tgt_tokens();
  float* cur = bw_->a.get();  // dL/d(the stream) entering a sub-layer from above
  float* next = bw_->b.get();
  const int nd = cfg_.decoder_layers, ne = cfg_.encoder_layers;
  const void* dec_last = nd > 0 ? dec_saved_[nd - 1].ff.at(ff_tail + tail_out) : tgt_.get();
  norm_backward(dec_norm_, dec_last, dec_norm_saved_.stats(0), grad_output(), cur, mt, s);
  const void* memory = enc_norm_saved_.at(1);
  for (int i = nd - 1; i >= 0; --i) {
    const decoder_saved& sv = dec_saved_[i];
    const int site_layer = ne + i;
    feed_forward_backward(dec_[i].ff, sv.ff, dec_[i].n3, sv.ca.at(ca_tail + tail_out), cfg_.tgt_len, cur, next, s);
    std::swap(cur, next);
    cross_attention_backward(dec_[i].ca, sv.ca, dec_[i].n2, sv.sa.at(sa_tail + tail_out), memory, site_layer, cur, next,
                             s);
    std::swap(cur, next);
    const void* in = i > 0 ? dec_saved_[i - 1].ff.at(ff_tail + tail_out) : tgt_.get();
    self_attention_backward(dec_[i].sa, sv.sa, dec_[i].n1, in, cfg_.tgt_len, site_layer, cur, next, i > 0, s);
    std::swap(cur, next);
  }
  const void* enc_last = ne > 0 ? enc_saved_[ne - 1].ff.at(ff_tail + tail_out) : src_.get();
  norm_backward(enc_norm_, enc_last, enc_norm_saved_.stats(0), bw_->memory.get(), cur, ms, s);
  for (int i = ne - 1; i >= 0; --i) {
    const encoder_saved& sv = enc_saved_[i];
    feed_forward_backward(enc_[i].ff, sv.ff, enc_[i].n2, sv.sa.at(sa_tail + tail_out), cfg_.src_len, cur, next, s);
    std::swap(cur, next);
    const void* in = i > 0 ? enc_saved_[i - 1].ff.at(ff_tail + tail_out) : src_.get();
    self_attention_backward(enc_[i].sa, sv.sa, enc_[i].n1, in, cfg_.src_len, i, cur, next, i > 0, s);
    std::swap(cur, next);
  }
}

}  // namespace cudabench::transformer
