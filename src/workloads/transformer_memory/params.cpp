// See params.hpp.
#include "workloads/transformer_memory/params.hpp"

#include <cmath>
#include <cstring>
#include <stdexcept>

#include <cuda_fp16.h>
#include <fmt/format.h>

#include "cudabench/errors.hpp"
#include "cudabench/gpu/cuda_check.hpp"
#include "cudabench/safetensors.hpp"
#include "kernels/common/random_fill.cuh"
#include "kernels/train_step/cast.cuh"

namespace cudabench::transformer {
namespace {

void add(std::vector<param_entry>& t, std::size_t& off, const std::string& name, std::vector<std::int64_t> shape,
         float lo, float hi) {
  param_entry e;
  e.name = name;
  e.numel = 1;
  for (auto s : shape) e.numel *= static_cast<std::size_t>(s);
  e.shape = std::move(shape);
  e.offset = off;
  e.lo = lo;
  e.hi = hi;
  off += (e.numel + 63) / 64 * 64;
  t.push_back(std::move(e));
}

// Linear layers: U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for weight and bias (torch.nn.Linear's range);
// LayerNorm: gamma in [0.8, 1.2], beta in [-0.1, 0.1] -- never exactly ones/zeros, so a swapped
// or skipped affine transform shows up in validation.
void add_linear(std::vector<param_entry>& t, std::size_t& off, const std::string& prefix, const std::string& w,
                const std::string& b, std::int64_t out, std::int64_t in) {
  const float r = 1.f / std::sqrt(static_cast<float>(in));
  add(t, off, prefix + w, {out, in}, -r, r);
  add(t, off, prefix + b, {out}, -r, r);
}
void add_norm(std::vector<param_entry>& t, std::size_t& off, const std::string& prefix, std::int64_t d) {
  add(t, off, prefix + ".weight", {d}, 0.8f, 1.2f);
  add(t, off, prefix + ".bias", {d}, -0.1f, 0.1f);
}
void add_attention(std::vector<param_entry>& t, std::size_t& off, const std::string& prefix, std::int64_t d) {
  add_linear(t, off, prefix, ".in_proj_weight", ".in_proj_bias", 3 * d, d);
  add_linear(t, off, prefix, ".out_proj.weight", ".out_proj.bias", d, d);
}

float half_bits_to_float(std::uint16_t h) {
  const std::uint32_t sign = (h & 0x8000u) << 16;
  std::uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ffu, bits;
  if (exp == 0x1f) {
    bits = sign | 0x7f800000u | (man << 13);
  } else if (exp == 0) {
    if (man == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      int e = -1;
      do {
        ++e;
        man <<= 1;
      } while ((man & 0x400u) == 0);
      bits = sign | ((112u - e) << 23) | ((man & 0x3ffu) << 13);
    }
  } else {
    bits = sign | ((exp + 112u) << 23) | (man << 13);
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

}  // namespace

std::vector<param_entry> param_table(const config& cfg) {
  std::vector<param_entry> t;
  std::size_t off = 0;
  const std::int64_t d = cfg.d_model, f = cfg.dim_feedforward;
  for (int i = 0; i < cfg.encoder_layers; ++i) {
    const std::string p = fmt::format("encoder.layers.{}.", i);
    add_attention(t, off, p + "self_attn", d);
    add_linear(t, off, p, "linear1.weight", "linear1.bias", f, d);
    add_linear(t, off, p, "linear2.weight", "linear2.bias", d, f);
    add_norm(t, off, p + "norm1", d);
    add_norm(t, off, p + "norm2", d);
  }
  add_norm(t, off, "encoder.norm", d);
  for (int i = 0; i < cfg.decoder_layers; ++i) {
    const std::string p = fmt::format("decoder.layers.{}.", i);
    add_attention(t, off, p + "self_attn", d);
    add_attention(t, off, p + "multihead_attn", d);
    add_linear(t, off, p, "linear1.weight", "linear1.bias", f, d);
    add_linear(t, off, p, "linear2.weight", "linear2.bias", d, f);
    add_norm(t, off, p + "norm1", d);
    add_norm(t, off, p + "norm2", d);
    add_norm(t, off, p + "norm3", d);
  }
  add_norm(t, off, "decoder.norm", d);
  return t;
}

parameters::parameters(const config& cfg) : table_(param_table(cfg)), type_(cfg.dtype) {
  const auto& last = table_.back();
  total_ = last.offset + (last.numel + 63) / 64 * 64;
  arena_ = device_buffer<std::byte>(total_ * cfg.elem_bytes());
}

void parameters::init_random(std::uint64_t seed, cudaStream_t stream) {
  for (std::size_t i = 0; i < table_.size(); ++i) {
    const auto& e = table_[i];
    const std::uint64_t s = seed * 1000003ull + i;
    if (type_ == dtype::fp16)
      kernels::fill_uniform(static_cast<__half*>(arena()) + e.offset, e.numel, s, e.lo, e.hi, stream);
    else kernels::fill_uniform(static_cast<float*>(arena()) + e.offset, e.numel, s, e.lo, e.hi, stream);
  }
}

void parameters::load_safetensors(const std::string& path, cudaStream_t stream) {
  const checkpoint ck = checkpoint::open(path);
  // fp32 tensors are staged once and converted on the device for an fp16 model.
  device_buffer<float> staging;
  for (const auto& e : table_) {
    const std::vector<std::string> dtypes =
        type_ == dtype::fp16 ? std::vector<std::string>{"F32", "F16"} : std::vector<std::string>{"F32"};
    const tensor_info& t = ck.expect(e.name, dtypes, e.shape);
    const std::size_t eb = type_ == dtype::fp16 ? 2 : 4;
    std::byte* dst = static_cast<std::byte*>(arena()) + e.offset * eb;
    if (type_ != dtype::fp16 || t.dtype == "F16") {
      CUDABENCH_CHECK_CUDA(cudaMemcpyAsync(dst, ck.data(t), e.numel * eb, cudaMemcpyHostToDevice, stream));
    } else {
      if (staging.size() < e.numel) {
        CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(stream));
        staging = device_buffer<float>(e.numel);
      }
      CUDABENCH_CHECK_CUDA(cudaMemcpyAsync(staging.get(), ck.data(t), e.numel * 4, cudaMemcpyHostToDevice, stream));
      kernels::train_step::cast_from_float(dst, staging.get(), e.numel, dtype::fp16, stream);
    }
    // The checkpoint's mapping must outlive the copies and the staging buffer its next reuse.
    CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(stream));
  }
}

const param_entry& parameters::entry(const std::string& name) const {
  for (const auto& e : table_)
    if (e.name == name) return e;
  throw std::out_of_range("transformer parameter not found: " + name);
}

const void* parameters::get(const std::string& name) const {
  return static_cast<const std::byte*>(arena()) + entry(name).offset * (type_ == dtype::fp16 ? 2 : 4);
}

std::vector<float> download_floats(const void* dev, std::size_t n, dtype type) {
  std::vector<float> out(n);
  if (type != dtype::fp16) {
    CUDABENCH_CHECK_CUDA(cudaMemcpy(out.data(), dev, n * 4, cudaMemcpyDeviceToHost));
    return out;
  }
  std::vector<std::uint16_t> raw(n);
  CUDABENCH_CHECK_CUDA(cudaMemcpy(raw.data(), dev, n * 2, cudaMemcpyDeviceToHost));
  for (std::size_t i = 0; i < n; ++i) out[i] = half_bits_to_float(raw[i]);
  return out;
}

}  // namespace cudabench::transformer
