// See weights.hpp. Random init scales keep activations O(1) through any depth: linear weights
// uniform in +-1/sqrt(fan_in) (outputs have rms ~0.6 for unit-rms inputs), embeddings in +-1,
// norm weights in [0.9, 1.1) (near 1, not exactly 1, so a norm that ignored its weight is caught).
// q_proj and k_proj get 3x that range: attention scores then have a standard deviation of ~3
// instead of ~0.3, so softmax is peaked rather than nearly uniform and a wrong position, mask or
// rotation changes the output enough for validation to see it.
#include "workloads/llm_decode/weights.hpp"

#include <cmath>
#include <cstring>
#include <optional>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <fmt/format.h>

#include "cudabench/errors.hpp"
#include "cudabench/gpu/cuda_check.hpp"
#include "cudabench/safetensors.hpp"
#include "kernels/common/random_fill.cuh"

namespace cudabench::llm {

dtype dtype_from_string(const std::string& s) { return parse_dtype(s, "llm_decode", {dtype::fp16, dtype::bf16}); }
const char* safetensors_dtype(dtype d) { return d == dtype::fp16 ? "F16" : "BF16"; }

std::int64_t tensor_slot::numel() const {
  std::int64_t n = 1;
  for (auto v : shape) n *= v;
  return n;
}

std::int64_t weight_layout::parameter_elements() const {
  std::int64_t n = 0;
  for (const auto& s : slots) n += s.numel();
  return n;
}

weight_layout make_weight_layout(const llm_config& c) {
  weight_layout w;
  std::size_t next = 0;
  const auto reserve = [&](std::size_t elements) {
    const std::size_t at = next;
    next += (elements + 127) / 128 * 128;  // 256-byte alignment for 2-byte elements
    return at;
  };
  const std::int64_t h = c.hidden_size, inter = c.intermediate_size, q = c.q_dim(), kv = c.kv_dim();
  const auto linear = [&](const std::string& name, std::int64_t rows, std::int64_t cols, std::size_t offset,
                          float gain = 1.0f) {
    const float a = gain / std::sqrt(static_cast<float>(cols));
    w.slots.push_back({name, {rows, cols}, offset, -a, a});
  };
  const auto norm = [&](const std::string& name, std::size_t offset) {
    w.slots.push_back({name, {h}, offset, 0.9f, 1.1f});
  };

  w.embed = reserve(static_cast<std::size_t>(c.vocab_size) * h);
  w.slots.push_back({"model.embed_tokens.weight", {c.vocab_size, h}, w.embed, -1.0f, 1.0f});
  for (int l = 0; l < c.num_layers; ++l) {
    layer_offsets o;
    const std::string p = fmt::format("model.layers.{}.", l);
    o.in_norm = reserve(h);
    o.wqkv = reserve(static_cast<std::size_t>(q + 2 * kv) * h);
    o.wo = reserve(static_cast<std::size_t>(h) * q);
    o.post_norm = reserve(h);
    o.wgu = reserve(static_cast<std::size_t>(2 * inter) * h);
    o.wd = reserve(static_cast<std::size_t>(h) * inter);
    norm(p + "input_layernorm.weight", o.in_norm);
    linear(p + "self_attn.q_proj.weight", q, h, o.wqkv, 3.0f);
    linear(p + "self_attn.k_proj.weight", kv, h, o.wqkv + static_cast<std::size_t>(q) * h, 3.0f);
    linear(p + "self_attn.v_proj.weight", kv, h, o.wqkv + static_cast<std::size_t>(q + kv) * h);
    linear(p + "self_attn.o_proj.weight", h, q, o.wo);
    norm(p + "post_attention_layernorm.weight", o.post_norm);
    linear(p + "mlp.gate_proj.weight", inter, h, o.wgu);
    linear(p + "mlp.up_proj.weight", inter, h, o.wgu + static_cast<std::size_t>(inter) * h);
    linear(p + "mlp.down_proj.weight", h, inter, o.wd);
    w.layers.push_back(o);
  }
  w.final_norm = reserve(h);
  norm("model.norm.weight", w.final_norm);
  if (c.tie_word_embeddings) {
    w.lm_head = w.embed;
  } else {
    w.lm_head = reserve(static_cast<std::size_t>(c.vocab_size) * h);
    linear("lm_head.weight", c.vocab_size, h, w.lm_head);
  }
  w.total_elements = next;
  return w;
}

std::uint64_t tensor_seed(std::uint64_t seed, std::size_t index) {
  return kernels::splitmix64(seed ^ (0x6c6c6d5f77656967ull + index * 0x9e3779b97f4a7c15ull));
}

void fill_random_weights(void* base, dtype d, const weight_layout& layout, std::uint64_t seed, cudaStream_t stream) {
  for (std::size_t i = 0; i < layout.slots.size(); ++i) {
    const tensor_slot& s = layout.slots[i];
    const std::size_t n = static_cast<std::size_t>(s.numel());
    if (d == dtype::fp16)
      kernels::fill_uniform(static_cast<__half*>(base) + s.offset, n, tensor_seed(seed, i), s.lo, s.hi, stream);
    else
      kernels::fill_uniform(static_cast<__nv_bfloat16*>(base) + s.offset, n, tensor_seed(seed, i), s.lo, s.hi, stream);
  }
}

namespace {

float load_element(const std::byte* p, const std::string& st_dtype, std::size_t i) {
  if (st_dtype == "F32") {
    float v;
    std::memcpy(&v, p + 4 * i, 4);
    return v;
  }
  std::uint16_t bits;
  std::memcpy(&bits, p + 2 * i, 2);
  if (st_dtype == "F16") {
    __half_raw r;
    r.x = bits;
    return __half2float(__half(r));
  }
  const std::uint32_t widened = static_cast<std::uint32_t>(bits) << 16;  // BF16
  float v;
  std::memcpy(&v, &widened, 4);
  return v;
}

std::uint16_t to_bits(float v, dtype d) {
  std::uint16_t bits;
  if (d == dtype::fp16) {
    const __half h = __float2half_rn(v);
    std::memcpy(&bits, &h, 2);
  } else {
    const __nv_bfloat16 b = __float2bfloat16_rn(v);
    std::memcpy(&bits, &b, 2);
  }
  return bits;
}

float round_through(float v, dtype d) {
  if (d == dtype::fp16) return __half2float(__float2half_rn(v));
  return __bfloat162float(__float2bfloat16_rn(v));
}

const tensor_info& expect_slot(const checkpoint& ck, const tensor_slot& s) {
  return ck.expect(s.name, {"F16", "BF16", "F32"}, s.shape);
}

}  // namespace

void load_checkpoint_weights(void* base, dtype d, const weight_layout& layout, const checkpoint& ck,
                             cudaStream_t stream) {
  // Check every tensor before copying any, so a bad checkpoint fails fast and names the tensor.
  for (const auto& s : layout.slots) expect_slot(ck, s);
  std::vector<std::uint16_t> staging;
  for (const auto& s : layout.slots) {
    const tensor_info& t = expect_slot(ck, s);
    const std::size_t n = static_cast<std::size_t>(s.numel());
    void* dst = static_cast<std::uint16_t*>(base) + s.offset;
    // Pageable copies may return before the DMA is done: synchronise before the staging buffer
    // (or the mapping) is reused.
    if (t.dtype == safetensors_dtype(d)) {
      CUDABENCH_CHECK_CUDA(cudaMemcpyAsync(dst, ck.data(t), n * 2, cudaMemcpyHostToDevice, stream));
    } else {
      staging.resize(n);
      const std::byte* src = ck.data(t);
      for (std::size_t i = 0; i < n; ++i) staging[i] = to_bits(load_element(src, t.dtype, i), d);
      CUDABENCH_CHECK_CUDA(cudaMemcpyAsync(dst, staging.data(), n * 2, cudaMemcpyHostToDevice, stream));
    }
    CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(stream));
  }
}

host_weights load_host_weights(const weight_layout& layout, const weight_source& src, dtype d) {
  host_weights out;
  std::optional<checkpoint> ck;
  if (src.from_checkpoint) ck = checkpoint::open(src.checkpoint_dir);
  for (std::size_t i = 0; i < layout.slots.size(); ++i) {
    const tensor_slot& s = layout.slots[i];
    const std::size_t n = static_cast<std::size_t>(s.numel());
    std::vector<float> v(n);
    if (ck) {
      const tensor_info& t = expect_slot(*ck, s);
      const std::byte* p = ck->data(t);
      for (std::size_t j = 0; j < n; ++j) v[j] = round_through(load_element(p, t.dtype, j), d);
    } else {
      const std::uint64_t seed = tensor_seed(src.seed, i);
      for (std::size_t j = 0; j < n; ++j) v[j] = round_through(kernels::uniform_at(seed, j, s.lo, s.hi), d);
    }
    out.emplace(s.name, std::move(v));
  }
  return out;
}

}  // namespace cudabench::llm
