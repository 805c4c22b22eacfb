// Llama weights on the device: one allocation, the Hugging Face tensors at fixed offsets, filled
// either from seeded random values (generated on the GPU) or from a safetensors checkpoint.
//
// Layout (elements of the run dtype, each tensor 256-byte aligned):
//   embed [vocab][hidden]
//   per layer: input_layernorm [hidden], wqkv [q_dim + 2 kv_dim][hidden] (q_proj, k_proj, v_proj
//   rows stacked, so decode runs one GEMV and prefill one GEMM for all three), o_proj
//   [hidden][q_dim], post_attention_layernorm [hidden], wgu [2 intermediate][hidden] (gate_proj
//   rows, then up_proj rows), down_proj [hidden][intermediate]
//   final norm [hidden]; lm_head [vocab][hidden] (absent when tied: lm_head is embed).
//
// The CPU reference gets its own copy of the same values from the same source (the seed, or the
// checkpoint file) -- never from the device buffer -- so corrupting the device weights is caught.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "cudabench/dtype.hpp"
#include "cudabench/llm_config.hpp"

namespace cudabench {
class checkpoint;
}

namespace cudabench::llm {

// The run dtype is fp16 or bf16.
dtype dtype_from_string(const std::string& s);  // "fp16" / "bf16"; input_error otherwise
const char* safetensors_dtype(dtype d);         // "F16" / "BF16"

// Where the weights come from.
struct weight_source {
  bool from_checkpoint = false;
  std::string checkpoint_dir;  // from_checkpoint: a directory (or file) checkpoint::open accepts
  std::uint64_t seed = 0;      // random: the base seed
};

// One Hugging Face tensor and where it lives.
struct tensor_slot {
  std::string name;                 // e.g. "model.layers.3.mlp.up_proj.weight"
  std::vector<std::int64_t> shape;  // as in the checkpoint: [rows, cols] or [n] for norms
  std::size_t offset = 0;           // elements into the weight buffer
  float lo = 0, hi = 0;             // random init: uniform in [lo, hi)
  std::int64_t numel() const;
};

struct layer_offsets {
  std::size_t in_norm = 0, wqkv = 0, wo = 0, post_norm = 0, wgu = 0, wd = 0;
};

struct weight_layout {
  std::size_t total_elements = 0;
  std::size_t embed = 0, final_norm = 0, lm_head = 0;  // lm_head == embed when tied
  std::vector<layer_offsets> layers;
  std::vector<tensor_slot> slots;           // every checkpoint tensor, in a fixed order
  std::int64_t parameter_elements() const;  // sum over slots (no padding)
};

weight_layout make_weight_layout(const llm_config& c);

// The seed of slot `index` for base seed `seed`: each tensor is its own random stream.
std::uint64_t tensor_seed(std::uint64_t seed, std::size_t index);

// Fill the device buffer (element type `d`, `base` points at element 0). Random: asynchronous on
// `stream`. Checkpoint: checks every tensor's presence, shape and dtype (input_error naming the
// tensor), converts F32/F16/BF16 to the run dtype on the host where they differ, and copies on
// `stream`, synchronising it before returning.
void fill_random_weights(void* base, dtype d, const weight_layout& layout, std::uint64_t seed, cudaStream_t stream);
void load_checkpoint_weights(void* base, dtype d, const weight_layout& layout, const checkpoint& ck,
                             cudaStream_t stream);

// Host copies of every tensor as float, each value rounded through the run dtype, for the CPU
// reference: the device's numbers (random values can differ in the last float bit where the GPU
// fuses the fill's multiply-add, so at most one fp16/bf16 ulp on a rare element).
using host_weights = std::map<std::string, std::vector<float>>;
host_weights load_host_weights(const weight_layout& layout, const weight_source& src, dtype d);

}  // namespace cudabench::llm
