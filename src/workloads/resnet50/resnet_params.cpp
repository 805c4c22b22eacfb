// See resnet_params.hpp.
#include "workloads/resnet50/resnet_params.hpp"

#include <cmath>
#include <cstring>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <fmt/format.h>

#include "cudabench/errors.hpp"
#include "cudabench/safetensors.hpp"
#include "kernels/common/random_fill.cuh"

namespace cudabench::resnet {
namespace {

// FNV-1a: a stable per-tensor seed from its name, so adding a tensor does not reshuffle others.
std::uint64_t name_hash(const std::string& s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

std::vector<float> uniform(std::uint64_t seed, const std::string& name, std::size_t n, float lo, float hi) {
  const std::uint64_t s = kernels::splitmix64(seed ^ name_hash(name));
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = kernels::uniform_at(s, i, lo, hi);
  return v;
}

bool is_last_of_block(const std::string& bn_name) {
  return bn_name.size() >= 4 && bn_name.compare(bn_name.size() - 4, 4, ".bn3") == 0;
}

std::vector<float> read_tensor(const checkpoint& ck, const std::string& name, const std::vector<std::int64_t>& shape) {
  const tensor_info& t = ck.expect(name, {"F32", "F16", "BF16"}, shape);
  const std::byte* p = ck.data(t);
  const std::size_t n = static_cast<std::size_t>(t.numel());
  std::vector<float> v(n);
  if (t.dtype == "F32") {
    std::memcpy(v.data(), p, n * sizeof(float));
  } else if (t.dtype == "F16") {
    for (std::size_t i = 0; i < n; ++i) {
      __half h;
      std::memcpy(&h, p + 2 * i, 2);
      v[i] = __half2float(h);
    }
  } else {  // BF16
    for (std::size_t i = 0; i < n; ++i) {
      __nv_bfloat16 h;
      std::memcpy(&h, p + 2 * i, 2);
      v[i] = __bfloat162float(h);
    }
  }
  return v;
}

}  // namespace

raw_params random_params(const arch& a, std::uint64_t seed) {
  raw_params p;
  for (const auto& c : a.convs) {
    const std::size_t n = static_cast<std::size_t>(c.out_c) * c.fan_in();
    const float bound = std::sqrt(6.0f / static_cast<float>(c.fan_in()));  // He-uniform: var = 2 / fan_in
    p.conv_w.push_back(uniform(seed, c.name + ".weight", n, -bound, bound));
    bn_params bn;
    const std::size_t k = static_cast<std::size_t>(c.out_c);
    // A small gamma on the block's last batch-norm keeps the residual stream from doubling per block.
    const bool last = is_last_of_block(c.bn);
    bn.gamma = uniform(seed, c.bn + ".weight", k, last ? 0.2f : 0.8f, last ? 0.5f : 1.2f);
    bn.beta = uniform(seed, c.bn + ".bias", k, -0.1f, 0.1f);
    bn.mean = uniform(seed, c.bn + ".running_mean", k, -0.1f, 0.1f);
    bn.var = uniform(seed, c.bn + ".running_var", k, 0.5f, 1.5f);
    p.bn.push_back(std::move(bn));
  }
  const float fb = 1.0f / std::sqrt(static_cast<float>(a.features));  // torch.nn.Linear's default bound
  p.fc_w = uniform(seed, a.fc + ".weight", static_cast<std::size_t>(a.num_classes) * a.features, -fb, fb);
  p.fc_b = uniform(seed, a.fc + ".bias", static_cast<std::size_t>(a.num_classes), -fb, fb);
  return p;
}

raw_params load_params(const arch& a, const std::string& path) {
  const checkpoint ck = checkpoint::open(path);
  raw_params p;
  for (const auto& c : a.convs) {
    p.conv_w.push_back(read_tensor(ck, c.name + ".weight", {c.out_c, c.in_c, c.kernel, c.kernel}));
    bn_params bn;
    bn.gamma = read_tensor(ck, c.bn + ".weight", {c.out_c});
    bn.beta = read_tensor(ck, c.bn + ".bias", {c.out_c});
    bn.mean = read_tensor(ck, c.bn + ".running_mean", {c.out_c});
    bn.var = read_tensor(ck, c.bn + ".running_var", {c.out_c});
    for (std::size_t i = 0; i < bn.var.size(); ++i)
      if (!(bn.var[i] >= 0.0f))
        throw input_error(fmt::format("{}: {}.running_var[{}] = {} is not a variance", path, c.bn, i, bn.var[i]));
    p.bn.push_back(std::move(bn));
  }
  p.fc_w = read_tensor(ck, a.fc + ".weight", {a.num_classes, a.features});
  p.fc_b = read_tensor(ck, a.fc + ".bias", {a.num_classes});
  return p;
}

folded_conv fold_batchnorm(const conv_spec& c, const std::vector<float>& w, const bn_params& bn) {
  folded_conv f;
  f.w.resize(w.size());
  f.b.resize(static_cast<std::size_t>(c.out_c));
  const std::size_t per_k = static_cast<std::size_t>(c.fan_in());
  for (int k = 0; k < c.out_c; ++k) {
    const double g = static_cast<double>(bn.gamma[k]) / std::sqrt(static_cast<double>(bn.var[k]) + bn_eps);
    for (std::size_t i = 0; i < per_k; ++i) {
      const std::size_t j = static_cast<std::size_t>(k) * per_k + i;
      f.w[j] = static_cast<float>(static_cast<double>(w[j]) * g);
    }
    f.b[k] = static_cast<float>(static_cast<double>(bn.beta[k]) - static_cast<double>(bn.mean[k]) * g);
  }
  return f;
}

}  // namespace cudabench::resnet
