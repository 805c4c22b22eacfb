// See torch_dump.hpp.
#include "workloads/transformer_memory/torch_dump.hpp"

#include <cstdlib>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "cudabench/gpu/cuda_check.hpp"
#include "cudabench/safetensors.hpp"
#include "workloads/transformer_memory/model.hpp"

namespace cudabench::transformer {
namespace {

using shape = std::vector<std::int64_t>;

// The data behind the tensor_bytes list. Growing an outer vector moves its inner vectors, which
// keeps their heap blocks, so the pointers taken stay valid.
struct dump_list {
  std::vector<std::vector<float>> floats;
  std::vector<std::vector<std::uint8_t>> masks;
  std::vector<tensor_bytes> out;
  void add(const std::string& name, shape s, std::vector<float> v) {
    floats.push_back(std::move(v));
    out.push_back({name, "F32", std::move(s), floats.back().data()});
  }
  void add(const std::string& name, shape s, std::vector<std::uint8_t> v) {
    masks.push_back(std::move(v));
    out.push_back({name, "U8", std::move(s), masks.back().data()});
  }
};

// Every mask one layer's forward draws, named by the torch module that draws it. Decoder layers'
// sites are numbered after the encoder's (dropout_rng.hpp).
void add_masks(dump_list& d, const config& c, int i, bool decoder) {
  const std::int64_t b = c.batch, h = c.nhead, dm = c.d_model, f = c.dim_feedforward;
  const std::int64_t s = decoder ? c.tgt_len : c.src_len;
  const int layer = decoder ? c.encoder_layers + i : i;
  const std::string p = fmt::format("mask.{}.layers.{}.", decoder ? "decoder" : "encoder", i);
  const std::uint32_t t = dropout_threshold(c.dropout);
  auto mask = [&](const std::string& name, dropout_site site, shape sh) {
    std::size_t n = 1;
    for (auto e : sh) n *= static_cast<std::size_t>(e);
    d.add(p + name, std::move(sh), dropout_mask(dropout_site_seed(c.dropout_seed, layer, site), t, n));
  };
  mask("self_attn", dropout_site::self_attention_probs, {b, h, s, s});
  mask("dropout1", dropout_site::self_attention_out, {b, s, dm});
  if (decoder) {
    mask("multihead_attn", dropout_site::cross_attention_probs, {b, h, s, c.src_len});
    mask("dropout2", dropout_site::cross_attention_out, {b, s, dm});
  }
  mask("dropout", dropout_site::ffn_hidden, {b, s, f});
  mask(decoder ? "dropout3" : "dropout2", dropout_site::ffn_out, {b, s, dm});
}

}  // namespace

std::string torch_dump_dir() {
  const char* d = std::getenv("CUDABENCH_TRANSFORMER_DUMP");
  return d ? std::string(d) : std::string();
}

void dump_for_torch(const model& m, const std::string& path, const std::string& row_id) {
  CUDABENCH_CHECK_CUDA(cudaDeviceSynchronize());
  const config& c = m.cfg();
  dump_list d;
  for (const auto& e : m.params().table())
    d.add(e.name, e.shape, download_floats(m.params().get(e.name), e.numel, c.dtype));
  const std::int64_t b = c.batch, dm = c.d_model;
  d.add("src", {b, c.src_len, dm}, download_floats(m.src(), static_cast<std::size_t>(c.src_tokens() * dm), c.dtype));
  d.add("tgt", {b, c.tgt_len, dm}, download_floats(m.tgt(), static_cast<std::size_t>(c.tgt_tokens() * dm), c.dtype));
  d.add("output", {b, c.tgt_len, dm}, download_floats(m.output(), m.output_elems(), c.dtype));
  if (c.backward) {  // verify() ran the backward after the forward: G and every parameter's gradient
    d.add("grad_output", {b, c.tgt_len, dm}, download_floats(m.grad_output(), m.output_elems(), c.dtype));
    for (const auto& e : m.params().table())
      d.add("grad." + e.name, e.shape, download_floats(m.gradient(e.name), e.numel, dtype::fp32));
  }
  const bool masks = c.train() && c.dropout > 0;
  if (masks) {
    for (int i = 0; i < c.encoder_layers; ++i) add_masks(d, c, i, false);
    for (int i = 0; i < c.decoder_layers; ++i) add_masks(d, c, i, true);
  }
  const std::map<std::string, std::string> meta = {
      {"row_id", row_id},
      {"d_model", std::to_string(c.d_model)},
      {"nhead", std::to_string(c.nhead)},
      {"encoder_layers", std::to_string(c.encoder_layers)},
      {"decoder_layers", std::to_string(c.decoder_layers)},
      {"dim_feedforward", std::to_string(c.dim_feedforward)},
      {"layer_norm_eps", fmt::format("{}", c.ln_eps)},
      {"batch", std::to_string(c.batch)},
      {"src_len", std::to_string(c.src_len)},
      {"tgt_len", std::to_string(c.tgt_len)},
      {"dtype", dtype_name(c.dtype)},
      {"mode", c.train() ? "train" : "inference"},
      {"dropout", fmt::format("{}", c.dropout)},
      // The kernels multiply kept elements by this float, not by 1 / (1 - p) in double.
      {"dropout_scale", fmt::format("{}", static_cast<float>(1.0 / (1.0 - c.dropout)))},
      {"dropout_seed", std::to_string(c.dropout_seed)},
      {"masks", masks ? "yes" : "no"},
      {"backward", c.backward ? "yes" : "no"},
      {"attention", kernels::transformer_memory::attention_variant_name(c.effective_attention())},
  };
  write_safetensors(path, d.out, meta);
}

}  // namespace cudabench::transformer
