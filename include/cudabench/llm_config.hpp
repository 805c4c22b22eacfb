// The shape of a Llama-family decoder: built-in presets and Hugging Face config.json parsing.
// Host-only (cudabench::core). The llm_decode workload reads a config from a preset name or a
// directory in Hugging Face layout; anything it cannot run faithfully (rope scaling, biases,
// activations other than SiLU) is refused here with a message naming the file and the key.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cudabench {

struct llm_config {
  std::string name;  // preset name, or the directory it was read from
  int vocab_size = 0;
  int hidden_size = 0;
  int intermediate_size = 0;
  int num_layers = 0;
  int num_heads = 0;
  int num_kv_heads = 0;  // < num_heads: grouped-query attention
  int head_dim = 0;      // usually hidden_size / num_heads; config.json may set it explicitly
  double rms_norm_eps = 1e-5;
  double rope_theta = 10000.0;
  int max_position_embeddings = 4096;
  bool tie_word_embeddings = false;  // lm_head shares embed_tokens' weight

  int group_size() const { return num_heads / num_kv_heads; }  // query heads per KV head
  int q_dim() const { return num_heads * head_dim; }           // o_proj input width
  int kv_dim() const { return num_kv_heads * head_dim; }
  int qkv_rows() const { return q_dim() + 2 * kv_dim(); }  // fused q/k/v projection rows
  std::int64_t layer_parameters() const;                   // one decoder layer, norms included
  std::int64_t parameter_count() const;                    // embeddings + layers + final norm + lm_head (if untied)
};

// Built-in shapes: "llama-2-7b", "llama-3-8b" (grouped-query), "llama-tiny" (for tests and the
// quick suite: vocab 512, hidden 256, intermediate 688, 4 layers, 8 heads, 4 KV heads).
std::vector<std::string> llm_preset_names();
std::optional<llm_config> llm_preset(const std::string& name);

// Parses a Hugging Face LlamaConfig (config.json text). `source` prefixes every message.
// Throws input_error for missing/ill-typed/inconsistent values, unsupported_error for features
// the kernels do not implement (rope_scaling other than "default", attention/MLP biases,
// hidden_act other than silu, model types outside the Llama family).
llm_config parse_hf_llm_config(const std::string& json_text, const std::string& source);

// A preset name, or a directory holding config.json. Throws input_error if neither.
llm_config load_llm_config(const std::string& preset_or_dir);

}  // namespace cudabench
