// See model.hpp. The forward pass reads top to bottom like nn.Transformer.forward:
//   memory = encoder.norm(encoder layers(src)); out = decoder.norm(decoder layers(tgt, memory)).
#include "workloads/transformer_memory/model.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "cudabench/errors.hpp"
#include "cudabench/gpu/cuda_check.hpp"
#include "cudabench/gpu/dtype_cuda.hpp"
#include "kernels/common/random_fill.cuh"
#include "kernels/transformer_memory/attention.cuh"
#include "kernels/transformer_memory/layernorm.cuh"
#include "workloads/transformer_memory/attention_tuner.hpp"

namespace cudabench::transformer {
namespace {

// Largest divisor of the batch whose sequences fit config::chunk_tokens (at least 1), so every
// chunk has the same shape and one set of GEMM plans serves them all.
int chunk_sequences(const config& c) {
  const std::int64_t longest = std::max(c.src_len, c.tgt_len);
  int best = 1;
  for (int d = 1; d <= c.batch; ++d)
    if (c.batch % d == 0 && d * longest <= c.chunk_tokens) best = d;
  return best;
}

std::int64_t scratch_elems(const config& c) {
  const std::int64_t d = c.d_model, f = c.dim_feedforward, n = chunk_sequences(c);
  const std::int64_t ms = n * c.src_len, mt = n * c.tgt_len;  // tokens per chunk
  // Train mode writes projections, attention and hidden layers into their saved buffers; only
  // out_proj's and linear2's outputs wait here for their dropout.
  if (c.train()) return std::max(ms, mt) * d;
  return std::max({4 * ms * d, 4 * mt * d, 2 * mt * d + 2 * ms * d, ms * f, mt * f});
}

gemm_types types_for(const config& c) { return gemm_types_of(c.dtype); }
cudaDataType_t bias_type(const config& c) { return cuda_data_type(c.dtype); }

const float k_one = 1.f;  // alpha and beta of the residual GEMMs (D = W·X + bias + 1·D)

}  // namespace

std::uint64_t model::planned_bytes(const config& c) {
  std::uint64_t params = 0;
  for (const auto& e : param_table(c)) params += (e.numel + 63) / 64 * 64;
  // Inference: src, tgt, enc_x, dec_x; train: src, tgt and the saved tensors.
  const std::uint64_t streams = c.train() ? 1 : 2;
  const std::uint64_t act = streams * (c.src_tokens() + c.tgt_tokens()) * static_cast<std::uint64_t>(c.d_model) +
                            static_cast<std::uint64_t>(scratch_elems(c));
  return (params + act) * c.elem_bytes() + (c.train() ? saved_bytes_total(c.saved_shape()) : 0) +
         (c.train() && c.backward ? backward_bytes(c) : 0);
}

model::model(const blaslt_context& lt, const config& cfg)
    : lt_(lt), cfg_(cfg), chunk_(chunk_sequences(cfg)), params_(cfg) {
  if (cfg.d_model % cfg.nhead != 0 || !kernels::transformer_memory::attention_head_dim_supported(cfg.head_dim()))
    throw unsupported_error(fmt::format("transformer: head_dim {} (d_model {} / nhead {}) not in 16, 32, 64",
                                        cfg.d_model / std::max(cfg.nhead, 1), cfg.d_model, cfg.nhead));
  if (cfg.d_model % 8 != 0) throw unsupported_error("transformer: d_model must be a multiple of 8");
  const std::size_t eb = cfg.elem_bytes();
  const std::size_t d = static_cast<std::size_t>(cfg.d_model);
  src_ = device_buffer<std::byte>(static_cast<std::size_t>(cfg.src_tokens()) * d * eb);
  tgt_ = device_buffer<std::byte>(static_cast<std::size_t>(cfg.tgt_tokens()) * d * eb);
  if (cfg.train()) {
    if (!(cfg.dropout >= 0 && cfg.dropout < 1)) throw input_error("transformer: dropout must be in [0, 1)");
    cfg_.attention =
        kernels::transformer_memory::attention_variant::cuda_core;  // the kernel with dropout and logsumexp
  } else {
    enc_x_ = device_buffer<std::byte>(static_cast<std::size_t>(cfg.src_tokens()) * d * eb);
    dec_x_ = device_buffer<std::byte>(static_cast<std::size_t>(cfg.tgt_tokens()) * d * eb);
  }
  scratch_ = device_buffer<std::byte>(static_cast<std::size_t>(scratch_elems(cfg)) * eb);
  if (cfg.train()) allocate_saved();

  // GEMM plans are for one chunk of `chunk_` sequences.
  const std::int64_t cs = static_cast<std::int64_t>(chunk_) * cfg.src_len,
                     ct = static_cast<std::int64_t>(chunk_) * cfg.tgt_len;
  enc_.reserve(cfg.encoder_layers);
  for (int i = 0; i < cfg.encoder_layers; ++i) {
    const std::string p = fmt::format("encoder.layers.{}.", i);
    enc_.push_back(encoder_layer{make_attention(p + "self_attn", cs, cs, false), make_ffn(p, cs),
                                 make_norm(p + "norm1"), make_norm(p + "norm2")});
  }
  dec_.reserve(cfg.decoder_layers);
  for (int i = 0; i < cfg.decoder_layers; ++i) {
    const std::string p = fmt::format("decoder.layers.{}.", i);
    dec_.push_back(decoder_layer{make_attention(p + "self_attn", ct, ct, false),
                                 make_attention(p + "multihead_attn", ct, cs, true), make_ffn(p, ct),
                                 make_norm(p + "norm1"), make_norm(p + "norm2"), make_norm(p + "norm3")});
  }
  enc_norm_ = make_norm("encoder.norm");
  dec_norm_ = make_norm("decoder.norm");
  if (cfg.train() && cfg.backward) allocate_backward();
}

model::attention_block model::make_attention(const std::string& prefix, std::int64_t q_tokens, std::int64_t kv_tokens,
                                             bool cross) const {
  const std::int64_t d = cfg_.d_model;
  const std::size_t eb = cfg_.elem_bytes();
  const auto* w_in = static_cast<const std::byte*>(params_.get(prefix + ".in_proj_weight"));
  const auto* b_in = static_cast<const std::byte*>(params_.get(prefix + ".in_proj_bias"));
  const void* w_out = params_.get(prefix + ".out_proj.weight");
  const void* b_out = params_.get(prefix + ".out_proj.bias");
  const gemm_types t = types_for(cfg_);
  // Self-attention projects Q, K and V in one GEMM (N = 3D). Cross-attention projects Q from the
  // decoder stream with rows [0, D) of in_proj and K, V from the memory with rows [D, 3D).
  lt_matmul in = make_linear(lt_, q_tokens, cross ? d : 3 * d, d, t, gemm_epilogue::bias, b_in, bias_type(cfg_));
  std::unique_ptr<lt_matmul> kv;
  if (cross)
    kv = std::make_unique<lt_matmul>(make_linear(lt_, kv_tokens, 2 * d, d, t, gemm_epilogue::bias,
                                                 b_in + static_cast<std::size_t>(d) * eb, bias_type(cfg_)));
  lt_matmul out = make_linear(lt_, q_tokens, d, d, t, gemm_epilogue::bias, b_out, bias_type(cfg_));
  return attention_block{std::move(in), std::move(kv), std::move(out), w_in, w_out, b_in, b_out};
}

model::ffn_block model::make_ffn(const std::string& prefix, std::int64_t tokens) const {
  const std::int64_t d = cfg_.d_model, f = cfg_.dim_feedforward;
  const gemm_types t = types_for(cfg_);
  return ffn_block{make_linear(lt_, tokens, f, d, t, gemm_epilogue::bias_relu, params_.get(prefix + "linear1.bias"),
                               bias_type(cfg_)),
                   make_linear(lt_, tokens, d, f, t, gemm_epilogue::bias, params_.get(prefix + "linear2.bias"),
                               bias_type(cfg_)),
                   params_.get(prefix + "linear1.weight"),
                   params_.get(prefix + "linear2.weight"),
                   params_.get(prefix + "linear1.bias"),
                   params_.get(prefix + "linear2.bias")};
}

model::norm_ptrs model::make_norm(const std::string& prefix) const {
  return norm_ptrs{params_.get(prefix + ".weight"), params_.get(prefix + ".bias")};
}

void model::init_random(std::uint64_t seed, cudaStream_t stream) {
  params_.init_random(seed, stream);
  fill_inputs(seed + 7, stream);
}

void model::load_weights(const std::string& path, cudaStream_t stream) { params_.load_safetensors(path, stream); }

void model::fill_inputs(std::uint64_t seed, cudaStream_t stream) {
  const std::size_t ns = static_cast<std::size_t>(cfg_.src_tokens()) * cfg_.d_model;
  const std::size_t nt = static_cast<std::size_t>(cfg_.tgt_tokens()) * cfg_.d_model;
  if (cfg_.dtype == dtype::fp16) {
    kernels::fill_uniform(static_cast<__half*>(src()), ns, seed * 31 + 1, -1.f, 1.f, stream);
    kernels::fill_uniform(static_cast<__half*>(tgt()), nt, seed * 31 + 2, -1.f, 1.f, stream);
  } else {
    kernels::fill_uniform(static_cast<float*>(src()), ns, seed * 31 + 1, -1.f, 1.f, stream);
    kernels::fill_uniform(static_cast<float*>(tgt()), nt, seed * 31 + 2, -1.f, 1.f, stream);
  }
}

void* model::scratch_at(std::int64_t elem_offset) const {
  return scratch_.get() + static_cast<std::size_t>(elem_offset) * cfg_.elem_bytes();
}

void model::norm(const norm_ptrs& n, void* x, std::int64_t rows, cudaStream_t s) const {
  kernels::transformer_memory::layernorm_inplace(x, n.gamma, n.beta, rows, cfg_.d_model, cfg_.ln_eps, cfg_.dtype, s);
}

// x <- x + out_proj(MHA(x, x, x)); `x` holds `seq`-long sequences of all batch rows, processed
// `chunk_` sequences at a time.
kernels::transformer_memory::attention_args model::self_attention_args(int seq) const {
  const std::int64_t d = cfg_.d_model, m = static_cast<std::int64_t>(chunk_) * seq;
  const std::size_t eb = cfg_.elem_bytes();
  auto* qkv = static_cast<std::byte*>(scratch_at(0));
  kernels::transformer_memory::attention_args args;
  args.q = qkv;
  args.k = qkv + d * eb;
  args.v = qkv + 2 * d * eb;
  args.o = scratch_at(3 * m * d);
  args.ldq = args.ldk = args.ldv = 3 * d;
  args.ldo = d;
  args.batch = chunk_;
  args.heads = cfg_.nhead;
  args.head_dim = cfg_.head_dim();
  args.sq = args.sk = seq;
  args.type = cfg_.dtype;
  args.variant = cfg_.attention;
  return args;
}

// x <- x + out_proj(MHA(x, x, x)); `x` holds `seq`-long sequences of all batch rows, processed
// `chunk_` sequences at a time.
void model::self_attention(const attention_block& a, void* x, int seq, cudaStream_t s) const {
  const std::int64_t d = cfg_.d_model;
  const std::size_t eb = cfg_.elem_bytes();
  const kernels::transformer_memory::attention_args args = self_attention_args(seq);
  for (int b0 = 0; b0 < cfg_.batch; b0 += chunk_) {
    void* xc = static_cast<std::byte*>(x) + static_cast<std::size_t>(b0) * seq * d * eb;
    a.in.run(a.w_in, xc, const_cast<void*>(args.q), s);
    kernels::transformer_memory::attention_forward(args, s);
    a.out.run(&k_one, a.w_out, args.o, &k_one, xc, xc, s);
  }
}

kernels::transformer_memory::attention_args model::cross_attention_args() const {
  const std::int64_t d = cfg_.d_model;
  const std::int64_t mt = static_cast<std::int64_t>(chunk_) * cfg_.tgt_len,
                     ms = static_cast<std::int64_t>(chunk_) * cfg_.src_len;
  const std::size_t eb = cfg_.elem_bytes();
  auto* kv = static_cast<std::byte*>(scratch_at(mt * d));
  kernels::transformer_memory::attention_args args;
  args.q = scratch_at(0);
  args.k = kv;
  args.v = kv + d * eb;
  args.o = scratch_at(mt * d + 2 * ms * d);
  args.ldq = d;
  args.ldk = args.ldv = 2 * d;
  args.ldo = d;
  args.batch = chunk_;
  args.heads = cfg_.nhead;
  args.head_dim = cfg_.head_dim();
  args.sq = cfg_.tgt_len;
  args.sk = cfg_.src_len;
  args.type = cfg_.dtype;
  args.variant = cfg_.attention;
  return args;
}

// dec_x <- dec_x + out_proj(MHA(dec_x, memory, memory)); memory is the normed encoder output.
void model::cross_attention(const attention_block& a, cudaStream_t s) const {
  const std::int64_t d = cfg_.d_model;
  const std::size_t eb = cfg_.elem_bytes();
  const kernels::transformer_memory::attention_args args = cross_attention_args();
  const auto* w_kv = static_cast<const std::byte*>(a.w_in) + static_cast<std::size_t>(d * d) * eb;
  for (int b0 = 0; b0 < cfg_.batch; b0 += chunk_) {
    void* xc = dec_x_.get() + static_cast<std::size_t>(b0) * cfg_.tgt_len * d * eb;
    const void* mc = enc_x_.get() + static_cast<std::size_t>(b0) * cfg_.src_len * d * eb;
    a.in.run(a.w_in, xc, const_cast<void*>(args.q), s);
    a.kv->run(w_kv, mc, const_cast<void*>(args.k), s);
    kernels::transformer_memory::attention_forward(args, s);
    a.out.run(&k_one, a.w_out, args.o, &k_one, xc, xc, s);
  }
}

std::string model::tune_attention(std::uint64_t seed, cudaStream_t stream, const std::string* forced) {
  const bool only_cuda_core = cfg_.dtype == dtype::fp16 || cfg_.head_dim() != 64 || cfg_.train();
  if (forced) {  // replay (`--tuning-from`); verify() still checks the kernel against the reference
    for (auto v : {kernels::transformer_memory::attention_variant::cuda_core,
                   kernels::transformer_memory::attention_variant::tf32x3_two_pass,
                   kernels::transformer_memory::attention_variant::tf32x3_flash})
      if (*forced == kernels::transformer_memory::attention_variant_name(v)) {
        if (only_cuda_core && v != kernels::transformer_memory::attention_variant::cuda_core)
          throw input_error(fmt::format("--tuning-from: attention \"{}\" does not run this dtype/head_dim", *forced));
        cfg_.attention = v;
        return fmt::format("attention: {} (replayed from --tuning-from)", *forced);
      }
    throw input_error(fmt::format("--tuning-from: unknown attention kernel \"{}\"", *forced));
  }
  if (only_cuda_core) {
    cfg_.attention = kernels::transformer_memory::attention_variant::cuda_core;
    return cfg_.train() ? "attention: cuda-core (train mode: the kernel with dropout and logsumexp)"
                        : "attention: cuda-core (the only kernel for this dtype/head_dim)";
  }
  // Random Q/K/V: the kernels' speed does not depend on the values, but the check compares
  // outputs, which should not be degenerate.
  kernels::fill_uniform(reinterpret_cast<float*>(scratch_.get()), scratch_.bytes() / sizeof(float), seed, -1.f, 1.f,
                        stream);
  std::vector<attention_workload> shapes;
  shapes.push_back({self_attention_args(cfg_.src_len), cfg_.encoder_layers * (cfg_.batch / chunk_)});
  if (cfg_.decoder_layers > 0) {
    shapes.push_back({self_attention_args(cfg_.tgt_len), cfg_.decoder_layers * (cfg_.batch / chunk_)});
    shapes.push_back({cross_attention_args(), cfg_.decoder_layers * (cfg_.batch / chunk_)});
  }
  const attention_choice c = transformer::tune_attention(shapes, stream);
  cfg_.attention = c.variant;
  return "attention: " + c.summary;
}

// x <- x + linear2(relu(linear1(x))), `chunk_` sequences of length `seq` at a time.
void model::feed_forward(const ffn_block& f, void* x, int seq, cudaStream_t s) const {
  const std::size_t chunk_bytes = static_cast<std::size_t>(chunk_) * seq * cfg_.d_model * cfg_.elem_bytes();
  void* hidden = scratch_at(0);
  for (int b0 = 0; b0 < cfg_.batch; b0 += chunk_) {
    void* xc = static_cast<std::byte*>(x) + (b0 / chunk_) * chunk_bytes;
    f.up.run(f.w_up, xc, hidden, s);
    f.down.run(&k_one, f.w_down, hidden, &k_one, xc, xc, s);
  }
}

void* model::output() const { return cfg_.train() ? dec_norm_saved_.at(1) : dec_x_.get(); }

void model::forward(cudaStream_t s) const {
  if (cfg_.train()) return forward_train(s);
  const std::int64_t ms = cfg_.src_tokens(), mt = cfg_.tgt_tokens();
  CUDABENCH_CHECK_CUDA(cudaMemcpyAsync(enc_x_.get(), src_.get(), src_.bytes(), cudaMemcpyDeviceToDevice, s));
  for (const auto& l : enc_) {  // post-norm: x = norm1(x + sa(x)); x = norm2(x + ff(x))
    self_attention(l.sa, enc_x_.get(), cfg_.src_len, s);
    norm(l.n1, enc_x_.get(), ms, s);
    feed_forward(l.ff, enc_x_.get(), cfg_.src_len, s);
    norm(l.n2, enc_x_.get(), ms, s);
  }
  norm(enc_norm_, enc_x_.get(), ms, s);  // enc_x is now the memory

  CUDABENCH_CHECK_CUDA(cudaMemcpyAsync(dec_x_.get(), tgt_.get(), tgt_.bytes(), cudaMemcpyDeviceToDevice, s));
  for (const auto& l : dec_) {
    self_attention(l.sa, dec_x_.get(), cfg_.tgt_len, s);
    norm(l.n1, dec_x_.get(), mt, s);
    cross_attention(l.ca, s);
    norm(l.n2, dec_x_.get(), mt, s);
    feed_forward(l.ff, dec_x_.get(), cfg_.tgt_len, s);
    norm(l.n3, dec_x_.get(), mt, s);
  }
  norm(dec_norm_, dec_x_.get(), mt, s);
}

}  // namespace cudabench::transformer
