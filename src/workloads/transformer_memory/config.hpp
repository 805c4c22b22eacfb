// Shape of a torch.nn.Transformer (batch_first=True, post-norm, ReLU, no masks) and the batch it
// runs on, in eval (inference) or in training mode with autograd on (train). The
// transformer_memory workload uses torch's defaults; validation and the oracle use smaller shapes
// through the same code.
#pragma once
#include <cstdint>

#include "cudabench/dtype.hpp"
#include "kernels/transformer_memory/attention.cuh"
#include "workloads/transformer_memory/saved_tensors.hpp"

namespace cudabench::transformer {

// inference: module.eval() under no_grad, the memory-frugal forward. train: the module in its
// default training mode without no_grad -- dropout on, and every tensor autograd saves for the
// backward kept until the end of the forward (saved_tensors.hpp).
enum class run_mode { inference, train };

struct config {
  int d_model = 512;
  int nhead = 8;
  int encoder_layers = 6;
  int decoder_layers = 6;
  int dim_feedforward = 2048;
  float ln_eps = 1e-5f;
  int batch = 1;
  int src_len = 512;
  int tgt_len = 512;
  cudabench::dtype dtype = cudabench::dtype::fp32;  // weights and activations: fp32, or fp16 (fp32 accumulation)
  // Sub-layers run on chunks of whole sequences of at most this many tokens: enough rows for
  // cuBLASLt to fill the GPU (M = 8192 for the default K = 512 GEMMs), while the scratch buffer
  // stays a fixed size instead of growing with the batch. Validation sets it small to get
  // several chunks.
  std::int64_t chunk_tokens = 8192;
  // The kernel for fp32 attention with head_dim 64 (fp16 and other head_dims use the CUDA-core
  // kernel). model::tune_attention() replaces it with the fastest variant on this GPU; tests run
  // every variant against the CPU reference.
  kernels::transformer_memory::attention_variant attention =
      kernels::transformer_memory::attention_variant::tf32x3_two_pass;
  run_mode mode = run_mode::inference;
  double dropout = 0.0;            // train mode: nn.Transformer's p (0.1 by default in the workload)
  std::uint64_t dropout_seed = 0;  // the masks' seed (dropout_rng.hpp)
  // Train mode, fp32: also the backward of sum(output * G) (model_backward.cpp), with every
  // parameter's gradient and the buffers it needs allocated at construction.
  bool backward = false;

  bool train() const { return mode == run_mode::train; }
  train_shape saved_shape() const {
    train_shape s;
    s.d_model = static_cast<std::uint64_t>(d_model);
    s.nhead = static_cast<std::uint64_t>(nhead);
    s.dim_feedforward = static_cast<std::uint64_t>(dim_feedforward);
    s.encoder_layers = static_cast<std::uint64_t>(encoder_layers);
    s.decoder_layers = static_cast<std::uint64_t>(decoder_layers);
    s.batch = static_cast<std::uint64_t>(batch);
    s.src_len = static_cast<std::uint64_t>(src_len);
    s.tgt_len = static_cast<std::uint64_t>(tgt_len);
    s.elem_bytes = elem_bytes();
    s.dropout = dropout > 0;
    return s;
  }

  // What actually runs for this config's attention.
  kernels::transformer_memory::attention_variant effective_attention() const {
    return dtype == cudabench::dtype::fp16 || head_dim() != 64 || train()
               ? kernels::transformer_memory::attention_variant::cuda_core
               : attention;
  }

  int head_dim() const { return d_model / nhead; }
  std::int64_t src_tokens() const { return static_cast<std::int64_t>(batch) * src_len; }
  std::int64_t tgt_tokens() const { return static_cast<std::int64_t>(batch) * tgt_len; }
  std::size_t elem_bytes() const { return dtype_bytes(dtype); }
};

}  // namespace cudabench::transformer
