// A torch.nn.Transformer forward pass (batch_first, post-norm, ReLU, no masks, eval) built from
// cuBLASLt GEMMs and the kernels in kernels/transformer_memory/. Everything it needs -- weights, src/tgt
// inputs, activations, GEMM plans -- is allocated in the constructor, so forward() allocates
// nothing and a budget overrun (--mem-limit) throws oom_error before anything runs; RAII members
// release what was allocated so far when a later allocation throws.
//
// Memory plan (E = element bytes, D = d_model, F = dim_feedforward, Ms/Mt = batch*src/tgt_len):
//   weights                      P*E   (P ~ 44.1M for the default shape: 176 MB fp32)
//   src, tgt inputs              (Ms + Mt)*D*E     kept so run() is repeatable
//   enc_x (encoder stream, then the decoder's memory)   Ms*D*E
//   dec_x (decoder stream, then the output)              Mt*D*E
//   scratch                      max(4*ms*D, 4*mt*D, 2*mt*D + 2*ms*D, ms*F, mt*F)*E, where ms/mt
//     are the tokens of one chunk: sub-layers run on chunks of whole sequences (<= 8192 tokens,
//     the largest divisor of the batch that fits), since only attention mixes tokens and only
//     within a sequence. Per chunk -- self-attention: packed QKV [m,3D] then the attention output
//     [m,D] behind it; cross-attention: Q [mt,D], KV [ms,2D], output [mt,D]; feed-forward: hidden
//     [m,F]. Each use is dead before the next starts, so one buffer serves every sub-layer, and
//     it does not grow with the batch (64 MiB for the default shape in fp32).
//   cuBLASLt workspace           the blaslt_context's (the workload uses 8 MiB)
// Residual adds are folded into the output-projection and linear2 GEMMs (beta = 1, C = D = x),
// bias+ReLU into linear1's epilogue, and attention never materialises [B, H, S, S] scores.
// Default shape, batch 128, seq 512, fp32: 176 MB + 4 * 128 MiB + 64 MiB + 8 MiB ~= 0.75 GB;
// batch 32: 176 MB + 4 * 32 MiB + 64 MiB + 8 MiB ~= 0.39 GB.
//
// Train mode (config::mode, model_train.cpp) keeps what autograd would: weights, src, tgt, one
// device buffer per saved_tensors.hpp entry (the stream moves through them -- each LayerNorm
// writes its saved output, the next sub-layer reads it -- so enc_x/dec_x are not allocated), and
// a scratch of one chunk's [m, D] for out_proj's and linear2's outputs before their dropout. The
// attention is the CUDA-core kernel with dropout and logsumexp (no tuner).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "cudabench/device_memory.hpp"
#include "cudabench/gpu/blaslt.hpp"
#include "kernels/transformer_memory/attention.cuh"
#include "kernels/transformer_memory/dropout_rng.hpp"
#include "kernels/transformer_memory/train_ops.cuh"
#include "workloads/transformer_memory/config.hpp"
#include "workloads/transformer_memory/params.hpp"

namespace cudabench::transformer {

class model {
 public:
  model(const blaslt_context& lt, const config& cfg);         // allocates and plans; contents undefined
  void init_random(std::uint64_t seed, cudaStream_t stream);  // weights and inputs
  void load_weights(const std::string& safetensors_path, cudaStream_t stream);
  void fill_inputs(std::uint64_t seed, cudaStream_t stream);  // src, tgt in [-1, 1)

  // Times the attention variants on this model's shapes (attention_tuner.hpp) and keeps the
  // fastest in cfg().attention; returns the tuner's summary. Overwrites the scratch buffer with
  // random inputs (forward() does not read what it left there), allocates no device memory and
  // synchronises `stream`. A no-op for configs where only the CUDA-core kernel applies.
  // `forced` (may be null): a kernel name to use instead of timing (attention_variant_name).
  std::string tune_attention(std::uint64_t seed, cudaStream_t stream, const std::string* forced = nullptr);

  // Enqueue one forward pass: output() <- Transformer(src, tgt). No allocation, no host sync.
  void forward(cudaStream_t stream) const;

  // cfg.backward only (train, fp32): after a forward(), enqueue the backward of
  // L = sum(output() * grad_output()): every parameter's gradient into gradient(name), zeroed
  // first, from the tensors the forward saved (model_backward.cpp). No allocation, no host sync.
  void backward(cudaStream_t stream) const;
  void fill_grad_output(std::uint64_t seed, cudaStream_t stream);                   // G in [-1, 1)
  float* grad_output() const { return reinterpret_cast<float*>(grad_out_.get()); }  // [batch, tgt_len, d_model]
  float* gradient(const std::string& name) const;  // device pointer, the shape of params().entry(name)
  // Train mode: the ReLU output a forward saved for feed-forward block `layer` of the encoder or
  // the decoder, [tokens, dim_feedforward] of cfg().dtype; the backward reads it and never writes
  // it. Validation reads which branch each input took from it (validate.hpp).
  void* relu_output(bool decoder, int layer) const;

  const config& cfg() const { return cfg_; }
  parameters& params() { return params_; }
  const parameters& params() const { return params_; }
  void* src() const { return src_.get(); }  // [batch, src_len, d_model]
  void* tgt() const { return tgt_.get(); }  // [batch, tgt_len, d_model]
  void* output() const;                     // [batch, tgt_len, d_model]
  std::size_t output_elems() const { return static_cast<std::size_t>(cfg_.tgt_tokens()) * cfg_.d_model; }

  // Bytes of the memory plan above, excluding the cuBLASLt workspace.
  static std::uint64_t planned_bytes(const config& cfg);
  static std::uint64_t backward_bytes(const config& cfg);  // the part cfg.backward adds (model_backward.cpp)

 private:
  // One sub-layer's GEMM plans (bias pointers are baked into a cuBLASLt plan, so one per layer)
  // and the weight pointers they use.
  struct attention_block {
    lt_matmul in;                   // self: packed QKV [M,3D]; cross: Q [Mt,D]
    std::unique_ptr<lt_matmul> kv;  // cross only: K,V of the memory [Ms,2D]
    lt_matmul out;                  // out_proj + bias + residual (beta = 1)
    const void* w_in;
    const void* w_out;
    const void* b_in;  // the backward's bias gradients are found from these
    const void* b_out;
  };
  struct ffn_block {
    lt_matmul up;    // linear1 + bias + ReLU -> scratch [M,F]
    lt_matmul down;  // linear2 + bias + residual
    const void* w_up;
    const void* w_down;
    const void* b_up;
    const void* b_down;
  };
  struct norm_ptrs {
    const void* gamma;
    const void* beta;
  };
  struct encoder_layer {
    attention_block sa;
    ffn_block ff;
    norm_ptrs n1, n2;
  };
  struct decoder_layer {
    attention_block sa, ca;
    ffn_block ff;
    norm_ptrs n1, n2, n3;
  };

  attention_block make_attention(const std::string& prefix, std::int64_t q_tokens, std::int64_t kv_tokens,
                                 bool cross) const;
  ffn_block make_ffn(const std::string& prefix, std::int64_t tokens) const;
  norm_ptrs make_norm(const std::string& prefix) const;
  kernels::transformer_memory::attention_args self_attention_args(int seq) const;  // one chunk, scratch layout below
  kernels::transformer_memory::attention_args cross_attention_args() const;
  void self_attention(const attention_block& a, void* x, int seq, cudaStream_t s) const;
  void cross_attention(const attention_block& a, cudaStream_t s) const;
  void feed_forward(const ffn_block& f, void* x, int seq, cudaStream_t s) const;
  void norm(const norm_ptrs& n, void* x, std::int64_t rows, cudaStream_t s) const;
  void* scratch_at(std::int64_t elem_offset) const;

  // Train mode: one device buffer per entry of a saved_tensors.hpp list, in its order.
  struct saved_block {
    std::vector<device_buffer<std::byte>> b;
    void* at(std::size_t i) const { return b.at(i).get(); }
    float* stats(std::size_t i) const { return reinterpret_cast<float*>(b.at(i).get()); }
  };
  struct encoder_saved {
    saved_block sa, ff;
  };
  struct decoder_saved {
    saved_block sa, ca, ff;
  };
  static saved_block allocate(const saved_list& l);
  void allocate_saved();
  void forward_train(cudaStream_t s) const;
  kernels::transformer_memory::dropout_params dropout_at(int layer, dropout_site site, std::uint8_t* mask,
                                                         std::uint64_t offset) const;
  const void* self_attention_train(const attention_block& a, const saved_block& sv, const norm_ptrs& n, const void* x,
                                   int seq, int layer, bool decoder, cudaStream_t s) const;
  const void* cross_attention_train(const attention_block& a, const saved_block& sv, const norm_ptrs& n, const void* y,
                                    const void* memory, int layer, cudaStream_t s) const;
  const void* feed_forward_train(const ffn_block& f, const saved_block& sv, const norm_ptrs& n, const void* x, int seq,
                                 int layer, cudaStream_t s) const;
  // x + dropout(y) over `tokens` rows into sv's tail (mask, sum, stats, norm output at `tail`),
  // then the LayerNorm; y holds the rows [row0, row0 + tokens) of the sub-layer output.
  void add_and_norm_chunk(const saved_block& sv, std::size_t tail, const void* x, const void* y, std::int64_t row0,
                          std::int64_t tokens, int layer, dropout_site site, cudaStream_t s) const;

  // Backward (model_backward.cpp): GEMM plans by shape, the gradient arena (params' layout) and
  // the activation-gradient buffers.
  struct backward_state;
  void allocate_backward();
  float* grad_of(const void* param) const;
  const lt_matmul& backward_gemm(bool weight_grad, std::int64_t m, std::int64_t n, std::int64_t k) const;
  void input_grad(const float* dy, const void* w, float* dx, std::int64_t m, std::int64_t n, std::int64_t k,
                  bool accumulate, cudaStream_t s) const;
  void weight_grad(const float* dy, const void* x, const void* w, const void* b, std::int64_t m, std::int64_t n,
                   std::int64_t k, cudaStream_t s) const;
  const float* norm_backward(const norm_ptrs& n, const void* in, const float* stats, const float* dy, float* dx,
                             std::int64_t rows, cudaStream_t s) const;
  const float* dropout_backward_of(const saved_block& sv, std::size_t tail, const float* dsum, std::int64_t n,
                                   cudaStream_t s) const;
  void self_attention_backward(const attention_block& a, const saved_block& sv, const norm_ptrs& n, const void* x,
                               int seq, int site_layer, const float* dy, float* dx, bool need_dx, cudaStream_t s) const;
  void cross_attention_backward(const attention_block& a, const saved_block& sv, const norm_ptrs& n, const void* y,
                                const void* memory, int site_layer, const float* dy, float* dx, cudaStream_t s) const;
  void feed_forward_backward(const ffn_block& f, const saved_block& sv, const norm_ptrs& n, const void* x, int seq,
                             const float* dy, float* dx, cudaStream_t s) const;

  const blaslt_context& lt_;
  config cfg_;
  int chunk_;  // sequences per sub-layer chunk, a divisor of the batch
  parameters params_;
  device_buffer<std::byte> src_, tgt_, enc_x_, dec_x_, scratch_;
  std::vector<encoder_layer> enc_;
  std::vector<decoder_layer> dec_;
  norm_ptrs enc_norm_{}, dec_norm_{};
  std::vector<encoder_saved> enc_saved_;  // train mode only
  std::vector<decoder_saved> dec_saved_;
  saved_block enc_norm_saved_, dec_norm_saved_;
  device_buffer<std::byte> grads_, grad_out_;  // backward only
  std::shared_ptr<backward_state> bw_;
};

}  // namespace cudabench::transformer
