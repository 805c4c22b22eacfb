// The parameters of a torch.nn.Transformer in one device arena, addressed by torch's state_dict
// names (encoder.layers.{i}.self_attn.in_proj_weight, ..., encoder.norm.weight, decoder.norm.bias),
// filled with seeded random values or loaded from a .safetensors export of that state_dict.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "cudabench/device_memory.hpp"
#include "workloads/transformer_memory/config.hpp"

namespace cudabench::transformer {

struct param_entry {
  std::string name;
  std::vector<std::int64_t> shape;
  std::size_t offset = 0;  // elements into the arena, a multiple of 64 (GEMM pointers stay 256-B aligned)
  std::size_t numel = 0;
  float lo = 0, hi = 0;  // random init range
};

// state_dict order of torch.nn.Transformer for this shape.
std::vector<param_entry> param_table(const config& cfg);

class parameters {
 public:
  explicit parameters(const config& cfg);  // allocates (may throw oom_error); contents undefined
  void init_random(std::uint64_t seed, cudaStream_t stream);
  // Every tensor of param_table must be present with its shape, dtype F32 (or F16 for an fp16
  // model); extra tensors are ignored. Synchronous (setup only).
  void load_safetensors(const std::string& path, cudaStream_t stream);

  const param_entry& entry(const std::string& name) const;  // std::out_of_range if unknown
  const void* get(const std::string& name) const;           // device pointer of that tensor
  void* arena() const { return arena_.get(); }
  std::size_t total_elems() const { return total_; }
  std::size_t bytes() const { return arena_.bytes(); }
  const std::vector<param_entry>& table() const { return table_; }
  dtype type() const { return type_; }

 private:
  std::vector<param_entry> table_;
  std::size_t total_ = 0;
  dtype type_ = dtype::fp32;
  device_buffer<std::byte> arena_;
};

// Copy `n` device elements (float, or __half when `type` is fp16) to the host as floats. Synchronous.
std::vector<float> download_floats(const void* dev, std::size_t n, dtype type);

}  // namespace cudabench::transformer
