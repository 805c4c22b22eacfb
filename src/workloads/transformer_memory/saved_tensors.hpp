// What PyTorch's autograd keeps alive at the end of a training-mode forward of torch.nn.Transformer
// (post-norm, ReLU, no masks), tensor by tensor: the byte accounting behind transformer_memory's
// train mode. The model allocates one device buffer per entry, in this order, and the forward
// writes each one; docs/transformer-train-memory.md derives the list from PyTorch's code.
// Header-only and CUDA-free, so the CPU unit tests check the numbers.
//
// Per entry: E = element bytes (4 fp32, 2 fp16), T = tokens of the stream (batch * seq), D =
// d_model, F = dim_feedforward, H = heads. Attention is PyTorch's memory-efficient SDPA (what it
// picks for fp32 with dropout): it saves q, k, v, its output and a float logsumexp
// [batch, H, seq_q rounded up to 32], and regenerates its dropout from a Philox seed, so no
// probability matrix or mask of it is stored. Dropout modules save a 1-byte mask; at p = 0 they
// return their input and save nothing. LayerNorm saves its input, and float mean and rstd per row.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace cudabench::transformer {

struct train_shape {
  std::uint64_t d_model = 512, nhead = 8, dim_feedforward = 2048;
  std::uint64_t encoder_layers = 6, decoder_layers = 6;
  std::uint64_t batch = 1, src_len = 512, tgt_len = 512;
  std::uint64_t elem_bytes = 4;
  bool dropout = true;  // p > 0: masks (and the hidden dropout's output) are kept
};

struct saved_tensor {
  std::string name;
  std::uint64_t bytes = 0;
};
using saved_list = std::vector<saved_tensor>;

namespace saved_detail {
inline std::uint64_t lse_bytes(const train_shape& s, std::uint64_t seq_q) {
  return s.batch * s.nhead * ((seq_q + 31) / 32 * 32) * 4;
}
// dropout (mask), residual sum, LayerNorm mean+rstd, LayerNorm output: the tail of every sub-layer.
inline void add_norm_tail(saved_list& l, const train_shape& s, std::uint64_t t) {
  const std::uint64_t td = t * s.d_model;
  l.push_back({"dropout mask of the sub-layer output", s.dropout ? td : 0});
  l.push_back({"residual sum (LayerNorm input)", td * s.elem_bytes});
  l.push_back({"LayerNorm mean and rstd (float)", 2 * t * 4});
  l.push_back({"LayerNorm output (next sub-layer's input)", td * s.elem_bytes});
}
}  // namespace saved_detail

// Self-attention sub-layer (x = norm(x + dropout(MHA(x, x, x)))) on `seq`-long sequences.
inline saved_list saved_self_attention(const train_shape& s, std::uint64_t seq) {
  const std::uint64_t t = s.batch * seq, td = t * s.d_model;
  saved_list l{{"in_proj q, k, v (contiguous [3, T, D])", 3 * td * s.elem_bytes},
               {"attention output (SDPA)", td * s.elem_bytes},
               {"attention logsumexp (float)", saved_detail::lse_bytes(s, seq)},
               {"out_proj input (permuted contiguous copy)", td * s.elem_bytes}};
  saved_detail::add_norm_tail(l, s, t);
  return l;
}

// Decoder cross-attention sub-layer: q from the target stream, k and v from the memory.
inline saved_list saved_cross_attention(const train_shape& s) {
  const std::uint64_t tt = s.batch * s.tgt_len, ts = s.batch * s.src_len, e = s.elem_bytes;
  saved_list l{{"q projection", tt * s.d_model * e},
               {"k, v projection (contiguous [2, Ts, D])", 2 * ts * s.d_model * e},
               {"attention output (SDPA)", tt * s.d_model * e},
               {"attention logsumexp (float)", saved_detail::lse_bytes(s, s.tgt_len)},
               {"out_proj input (permuted contiguous copy)", tt * s.d_model * e}};
  saved_detail::add_norm_tail(l, s, tt);
  return l;
}

// Feed-forward sub-layer: x = norm(x + dropout(linear2(dropout(relu(linear1(x)))))).
inline saved_list saved_feed_forward(const train_shape& s, std::uint64_t seq) {
  const std::uint64_t t = s.batch * seq, tf = t * s.dim_feedforward;
  saved_list l{{"ReLU output", tf * s.elem_bytes},
               {"dropout mask of the hidden layer", s.dropout ? tf : 0},
               {"hidden dropout output (linear2 input)", s.dropout ? tf * s.elem_bytes : 0}};
  saved_detail::add_norm_tail(l, s, t);
  return l;
}

// The final encoder.norm / decoder.norm: mean, rstd and the output (the memory; the model output).
inline saved_list saved_final_norm(const train_shape& s, std::uint64_t seq) {
  const std::uint64_t t = s.batch * seq;
  return {{"LayerNorm mean and rstd (float)", 2 * t * 4}, {"LayerNorm output", t * s.d_model * s.elem_bytes}};
}

inline std::uint64_t saved_bytes(const saved_list& l) {
  std::uint64_t b = 0;
  for (const auto& e : l) b += e.bytes;
  return b;
}

inline std::uint64_t saved_bytes_encoder_layer(const train_shape& s) {
  return saved_bytes(saved_self_attention(s, s.src_len)) + saved_bytes(saved_feed_forward(s, s.src_len));
}
inline std::uint64_t saved_bytes_decoder_layer(const train_shape& s) {
  return saved_bytes(saved_self_attention(s, s.tgt_len)) + saved_bytes(saved_cross_attention(s)) +
         saved_bytes(saved_feed_forward(s, s.tgt_len));
}
// Everything train mode keeps beyond the inputs: all layers and both final norms.
inline std::uint64_t saved_bytes_total(const train_shape& s) {
  return s.encoder_layers * saved_bytes_encoder_layer(s) + s.decoder_layers * saved_bytes_decoder_layer(s) +
         saved_bytes(saved_final_norm(s, s.src_len)) + saved_bytes(saved_final_norm(s, s.tgt_len));
}

}  // namespace cudabench::transformer
