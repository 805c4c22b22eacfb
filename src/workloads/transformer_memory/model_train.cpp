// model's train mode (model.hpp): nn.Transformer.forward as autograd runs it in training mode.
// Each sub-layer writes the tensors PyTorch would save into their own buffers (saved_tensors.hpp,
// in that list's order) and returns its LayerNorm output, which the next sub-layer reads:
//   attention:    in_proj -> q,k,v | SDPA with dropout -> output, logsumexp | copy -> out_proj input
//   feed-forward: linear1+ReLU -> ReLU output | dropout -> mask, linear2 input
//   both:         out_proj/linear2 -> scratch | x + dropout -> mask, sum | LayerNorm -> stats, output
// The copy of the attention output is PyTorch's permute(...).contiguous() before out_proj: it
// keeps both, so this does too. Nothing is recomputed and nothing freed before the end.
#include <stdexcept>

#include <fmt/format.h>

#include "cudabench/errors.hpp"
#include "cudabench/gpu/cuda_check.hpp"
#include "workloads/transformer_memory/model.hpp"
#include "workloads/transformer_memory/saved_index.hpp"

namespace cudabench::transformer {
namespace {

using namespace saved_index;  // NOLINT: the indices read as local names

std::byte* advance(const void* p, std::int64_t elems, std::size_t eb) {
  return static_cast<std::byte*>(const_cast<void*>(p)) + static_cast<std::size_t>(elems) * eb;
}

}  // namespace

model::saved_block model::allocate(const saved_list& l) {
  saved_block b;
  b.b.reserve(l.size());
  for (const auto& e : l) b.b.emplace_back(static_cast<std::size_t>(e.bytes));
  return b;
}

void model::allocate_saved() {
  const train_shape sh = cfg_.saved_shape();
  enc_saved_.reserve(cfg_.encoder_layers);
  for (int i = 0; i < cfg_.encoder_layers; ++i)
    enc_saved_.push_back(
        {allocate(saved_self_attention(sh, sh.src_len)), allocate(saved_feed_forward(sh, sh.src_len))});
  enc_norm_saved_ = allocate(saved_final_norm(sh, sh.src_len));
  dec_saved_.reserve(cfg_.decoder_layers);
  for (int i = 0; i < cfg_.decoder_layers; ++i)
    dec_saved_.push_back({allocate(saved_self_attention(sh, sh.tgt_len)), allocate(saved_cross_attention(sh)),
                          allocate(saved_feed_forward(sh, sh.tgt_len))});
  dec_norm_saved_ = allocate(saved_final_norm(sh, sh.tgt_len));
}

void* model::relu_output(bool decoder, int layer) const {
  const int layers = decoder ? cfg_.decoder_layers : cfg_.encoder_layers;
  if (!cfg_.train()) throw std::logic_error("transformer: relu_output() outside train mode");
  if (layer < 0 || layer >= layers)
    throw std::out_of_range(fmt::format("transformer: relu_output of {} layer {} (it has {})",
                                        decoder ? "decoder" : "encoder", layer, layers));
  return decoder ? dec_saved_[layer].ff.at(ff_relu) : enc_saved_[layer].ff.at(ff_relu);
}

kernels::transformer_memory::dropout_params model::dropout_at(int layer, dropout_site site, std::uint8_t* mask,
                                                              std::uint64_t offset) const {
  kernels::transformer_memory::dropout_params d;
  if (cfg_.dropout <= 0) return d;  // p = 0: identity, no mask
  d.mask = mask;
  d.seed = dropout_site_seed(cfg_.dropout_seed, layer, site);
  d.index_offset = offset;
  d.threshold = dropout_threshold(cfg_.dropout);
  d.scale = static_cast<float>(1.0 / (1.0 - cfg_.dropout));
  return d;
}

void model::add_and_norm_chunk(const saved_block& sv, std::size_t tail, const void* x, const void* y, std::int64_t row0,
                               std::int64_t tokens, int layer, dropout_site site, cudaStream_t s) const {
  const std::int64_t d = cfg_.d_model, off = row0 * d;
  const std::size_t eb = cfg_.elem_bytes();
  auto* mask = static_cast<std::uint8_t*>(sv.at(tail + tail_mask));
  const kernels::transformer_memory::dropout_params dp =
      dropout_at(layer, site, mask ? mask + off : nullptr, static_cast<std::uint64_t>(off));
  kernels::transformer_memory::dropout_add(advance(x, off, eb), y, advance(sv.at(tail + tail_sum), off, eb), tokens * d,
                                           dp, cfg_.dtype, s);
}

const void* model::self_attention_train(const attention_block& a, const saved_block& sv, const norm_ptrs& n,
                                        const void* x, int seq, int layer, bool decoder, cudaStream_t s) const {
  const std::int64_t d = cfg_.d_model, m = static_cast<std::int64_t>(chunk_) * seq, t = std::int64_t{cfg_.batch} * seq;
  const std::size_t eb = cfg_.elem_bytes();
  const int site_layer = decoder ? cfg_.encoder_layers + layer : layer;
  for (int b0 = 0; b0 < cfg_.batch; b0 += chunk_)
    a.in.run(a.w_in, advance(x, std::int64_t{b0} * seq * d, eb),
             advance(sv.at(sa_qkv), std::int64_t{b0} * seq * 3 * d, eb), s);
  kernels::transformer_memory::attention_args args;
  args.q = sv.at(sa_qkv);
  args.k = advance(sv.at(sa_qkv), d, eb);
  args.v = advance(sv.at(sa_qkv), 2 * d, eb);
  args.o = sv.at(sa_out);
  args.ldq = args.ldk = args.ldv = 3 * d;
  args.ldo = d;
  args.batch = cfg_.batch;
  args.heads = cfg_.nhead;
  args.head_dim = cfg_.head_dim();
  args.sq = args.sk = seq;
  args.type = cfg_.dtype;
  args.variant = kernels::transformer_memory::attention_variant::cuda_core;
  const kernels::transformer_memory::dropout_params pd =
      dropout_at(site_layer, dropout_site::self_attention_probs, nullptr, 0);
  args.dropout_threshold = pd.threshold;
  args.dropout_scale = pd.scale;
  args.dropout_seed = pd.seed;
  args.lse = sv.stats(sa_lse);
  args.lse_stride = (seq + 31) / 32 * 32;
  kernels::transformer_memory::attention_forward(args, s);
  CUDABENCH_CHECK_CUDA(cudaMemcpyAsync(sv.at(sa_proj_in), sv.at(sa_out), static_cast<std::size_t>(t * d) * eb,
                                       cudaMemcpyDeviceToDevice, s));
  for (int b0 = 0; b0 < cfg_.batch; b0 += chunk_) {
    const std::int64_t row0 = std::int64_t{b0} * seq;
    a.out.run(a.w_out, advance(sv.at(sa_proj_in), row0 * d, eb), scratch_.get(), s);
    add_and_norm_chunk(sv, sa_tail, x, scratch_.get(), row0, m, site_layer, dropout_site::self_attention_out, s);
  }
  kernels::transformer_memory::layernorm_train(sv.at(sa_tail + tail_sum), sv.at(sa_tail + tail_out), n.gamma, n.beta,
                                               sv.stats(sa_tail + tail_stats), sv.stats(sa_tail + tail_stats) + t, t,
                                               cfg_.d_model, cfg_.ln_eps, cfg_.dtype, s);
  return sv.at(sa_tail + tail_out);
}

const void* model::cross_attention_train(const attention_block& a, const saved_block& sv, const norm_ptrs& n,
                                         const void* y, const void* memory, int layer, cudaStream_t s) const {
  const std::int64_t d = cfg_.d_model, mt = static_cast<std::int64_t>(chunk_) * cfg_.tgt_len, t = cfg_.tgt_tokens();
  const std::size_t eb = cfg_.elem_bytes();
  const int site_layer = cfg_.encoder_layers + layer;
  const auto* w_kv = static_cast<const std::byte*>(a.w_in) + static_cast<std::size_t>(d * d) * eb;
  for (int b0 = 0; b0 < cfg_.batch; b0 += chunk_) {
    const std::int64_t rt = std::int64_t{b0} * cfg_.tgt_len, rs = std::int64_t{b0} * cfg_.src_len;
    a.in.run(a.w_in, advance(y, rt * d, eb), advance(sv.at(ca_q), rt * d, eb), s);
    a.kv->run(w_kv, advance(memory, rs * d, eb), advance(sv.at(ca_kv), rs * 2 * d, eb), s);
  }
  kernels::transformer_memory::attention_args args;
  args.q = sv.at(ca_q);
  args.k = sv.at(ca_kv);
  args.v = advance(sv.at(ca_kv), d, eb);
  args.o = sv.at(ca_out);
  args.ldq = d;
  args.ldk = args.ldv = 2 * d;
  args.ldo = d;
  args.batch = cfg_.batch;
  args.heads = cfg_.nhead;
  args.head_dim = cfg_.head_dim();
  args.sq = cfg_.tgt_len;
  args.sk = cfg_.src_len;
  args.type = cfg_.dtype;
  args.variant = kernels::transformer_memory::attention_variant::cuda_core;
  const kernels::transformer_memory::dropout_params pd =
      dropout_at(site_layer, dropout_site::cross_attention_probs, nullptr, 0);
  args.dropout_threshold = pd.threshold;
  args.dropout_scale = pd.scale;
  args.dropout_seed = pd.seed;
  args.lse = sv.stats(ca_lse);
  args.lse_stride = (cfg_.tgt_len + 31) / 32 * 32;
  kernels::transformer_memory::attention_forward(args, s);
  CUDABENCH_CHECK_CUDA(cudaMemcpyAsync(sv.at(ca_proj_in), sv.at(ca_out), static_cast<std::size_t>(t * d) * eb,
                                       cudaMemcpyDeviceToDevice, s));
  for (int b0 = 0; b0 < cfg_.batch; b0 += chunk_) {
    const std::int64_t row0 = std::int64_t{b0} * cfg_.tgt_len;
    a.out.run(a.w_out, advance(sv.at(ca_proj_in), row0 * d, eb), scratch_.get(), s);
    add_and_norm_chunk(sv, ca_tail, y, scratch_.get(), row0, mt, site_layer, dropout_site::cross_attention_out, s);
  }
  kernels::transformer_memory::layernorm_train(sv.at(ca_tail + tail_sum), sv.at(ca_tail + tail_out), n.gamma, n.beta,
                                               sv.stats(ca_tail + tail_stats), sv.stats(ca_tail + tail_stats) + t, t,
                                               cfg_.d_model, cfg_.ln_eps, cfg_.dtype, s);
  return sv.at(ca_tail + tail_out);
}

const void* model::feed_forward_train(const ffn_block& f, const saved_block& sv, const norm_ptrs& n, const void* x,
                                      int seq, int layer, cudaStream_t s) const {
  const std::int64_t d = cfg_.d_model, ff = cfg_.dim_feedforward, m = static_cast<std::int64_t>(chunk_) * seq,
                     t = std::int64_t{cfg_.batch} * seq;
  const std::size_t eb = cfg_.elem_bytes();
  for (int b0 = 0; b0 < cfg_.batch; b0 += chunk_) {
    const std::int64_t row0 = std::int64_t{b0} * seq;
    f.up.run(f.w_up, advance(x, row0 * d, eb), advance(sv.at(ff_relu), row0 * ff, eb), s);
  }
  // At p = 0 nn.Dropout returns its input: linear2 reads the ReLU output itself.
  const void* hidden = sv.at(ff_relu);
  if (cfg_.dropout > 0) {
    kernels::transformer_memory::dropout(
        sv.at(ff_relu), sv.at(ff_drop), t * ff,
        dropout_at(layer, dropout_site::ffn_hidden, static_cast<std::uint8_t*>(sv.at(ff_mask)), 0), cfg_.dtype, s);
    hidden = sv.at(ff_drop);
  }
  for (int b0 = 0; b0 < cfg_.batch; b0 += chunk_) {
    const std::int64_t row0 = std::int64_t{b0} * seq;
    f.down.run(f.w_down, advance(hidden, row0 * ff, eb), scratch_.get(), s);
    add_and_norm_chunk(sv, ff_tail, x, scratch_.get(), row0, m, layer, dropout_site::ffn_out, s);
  }
  kernels::transformer_memory::layernorm_train(sv.at(ff_tail + tail_sum), sv.at(ff_tail + tail_out), n.gamma, n.beta,
                                               sv.stats(ff_tail + tail_stats), sv.stats(ff_tail + tail_stats) + t, t,
                                               cfg_.d_model, cfg_.ln_eps, cfg_.dtype, s);
  return sv.at(ff_tail + tail_out);
}

void model::forward_train(cudaStream_t s) const {
  const void* x = src_.get();
  for (int i = 0; i < cfg_.encoder_layers; ++i) {
    x = self_attention_train(enc_[i].sa, enc_saved_[i].sa, enc_[i].n1, x, cfg_.src_len, i, false, s);
    x = feed_forward_train(enc_[i].ff, enc_saved_[i].ff, enc_[i].n2, x, cfg_.src_len, i, s);
  }
  const std::int64_t ms = cfg_.src_tokens(), mt = cfg_.tgt_tokens();
  kernels::transformer_memory::layernorm_train(x, enc_norm_saved_.at(1), enc_norm_.gamma, enc_norm_.beta,
                                               enc_norm_saved_.stats(0), enc_norm_saved_.stats(0) + ms, ms,
                                               cfg_.d_model, cfg_.ln_eps, cfg_.dtype, s);
  const void* memory = enc_norm_saved_.at(1);
  const void* y = tgt_.get();
  for (int i = 0; i < cfg_.decoder_layers; ++i) {
    const int site_layer = cfg_.encoder_layers + i;
    y = self_attention_train(dec_[i].sa, dec_saved_[i].sa, dec_[i].n1, y, cfg_.tgt_len, i, true, s);
    y = cross_attention_train(dec_[i].ca, dec_saved_[i].ca, dec_[i].n2, y, memory, i, s);
    y = feed_forward_train(dec_[i].ff, dec_saved_[i].ff, dec_[i].n3, y, cfg_.tgt_len, site_layer, s);
  }
  kernels::transformer_memory::layernorm_train(y, dec_norm_saved_.at(1), dec_norm_.gamma, dec_norm_.beta,
                                               dec_norm_saved_.stats(0), dec_norm_saved_.stats(0) + mt, mt,
                                               cfg_.d_model, cfg_.ln_eps, cfg_.dtype, s);
}

}  // namespace cudabench::transformer
