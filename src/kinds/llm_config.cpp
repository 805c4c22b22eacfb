// See llm_config.hpp. It lives with the kinds because only the llm_decode kind needs it: its GPU
// workload, and its rules (a model directory holds a Llama config; max_length within the model's
// context), which core's kind_rules.cpp checks. Defaults for keys config.json may omit follow
// transformers' LlamaConfig, so a directory means what it means to transformers; the dimensions
// themselves are required, since a config without them is almost certainly not what the user meant
// to point at.
#include "cudabench/llm_config.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cudabench/errors.hpp"

namespace cudabench {
namespace {

using json = nlohmann::json;

int required_positive_int(const json& j, const char* key, const std::string& source) {
  if (!j.contains(key) || j[key].is_null())
    throw input_error(fmt::format("{}: {}: missing (a positive integer)", source, key));
  const json& v = j[key];
  if (!v.is_number_integer() || v.get<std::int64_t>() <= 0 || v.get<std::int64_t>() > (1 << 30))
    throw input_error(fmt::format("{}: {}: expected a positive integer, got {}", source, key, v.dump()));
  return v.get<int>();
}

int optional_positive_int(const json& j, const char* key, int fallback, const std::string& source) {
  if (!j.contains(key) || j[key].is_null()) return fallback;
  return required_positive_int(j, key, source);
}

double optional_positive_number(const json& j, const char* key, double fallback, const std::string& source) {
  if (!j.contains(key) || j[key].is_null()) return fallback;
  const json& v = j[key];
  if (!v.is_number() || !(v.get<double>() > 0))
    throw input_error(fmt::format("{}: {}: expected a positive number, got {}", source, key, v.dump()));
  return v.get<double>();
}

bool optional_bool(const json& j, const char* key, bool fallback, const std::string& source) {
  if (!j.contains(key) || j[key].is_null()) return fallback;
  if (!j[key].is_boolean())
    throw input_error(fmt::format("{}: {}: expected true or false, got {}", source, key, j[key].dump()));
  return j[key].get<bool>();
}

// rope_scaling (transformers 4.x) or rope_parameters (newer releases, which also move rope_theta
// inside it). Only the plain rotary embedding is implemented: {"rope_type": "default"} or null.
void read_rope(const json& j, llm_config& c, const std::string& source) {
  c.rope_theta = optional_positive_number(j, "rope_theta", 10000.0, source);
  for (const char* key : {"rope_scaling", "rope_parameters"}) {
    if (!j.contains(key) || j[key].is_null()) continue;
    const json& r = j[key];
    if (!r.is_object())
      throw input_error(fmt::format("{}: {}: expected an object or null, got {}", source, key, r.dump()));
    std::string type = "default";
    if (r.contains("rope_type") && r["rope_type"].is_string()) type = r["rope_type"].get<std::string>();
    else if (r.contains("type") && r["type"].is_string()) type = r["type"].get<std::string>();
    if (type != "default")
      throw unsupported_error(
          fmt::format("{}: {}: rope_type \"{}\" is not supported (only the plain rotary "
                      "embedding, rope_type \"default\")",
                      source, key, type));
    if (r.contains("rope_theta"))
      c.rope_theta = optional_positive_number(r, "rope_theta", c.rope_theta, source + ": " + key);
  }
}

}  // namespace

std::int64_t llm_config::layer_parameters() const {
  const std::int64_t h = hidden_size, i = intermediate_size;
  return 2 * h + h * qkv_rows() + static_cast<std::int64_t>(q_dim()) * h + 3 * h * i;
}

std::int64_t llm_config::parameter_count() const {
  const std::int64_t vh = static_cast<std::int64_t>(vocab_size) * hidden_size;
  return vh + num_layers * layer_parameters() + hidden_size + (tie_word_embeddings ? 0 : vh);
}

std::vector<std::string> llm_preset_names() { return {"llama-2-7b", "llama-3-8b", "llama-tiny"}; }

std::optional<llm_config> llm_preset(const std::string& name) {
  llm_config c;
  c.name = name;
  if (name == "llama-2-7b") {
    c.vocab_size = 32000, c.hidden_size = 4096, c.intermediate_size = 11008, c.num_layers = 32;
    c.num_heads = 32, c.num_kv_heads = 32, c.rms_norm_eps = 1e-5, c.rope_theta = 10000.0;
    c.max_position_embeddings = 4096;
  } else if (name == "llama-3-8b") {
    c.vocab_size = 128256, c.hidden_size = 4096, c.intermediate_size = 14336, c.num_layers = 32;
    c.num_heads = 32, c.num_kv_heads = 8, c.rms_norm_eps = 1e-5, c.rope_theta = 500000.0;
    c.max_position_embeddings = 8192;
  } else if (name == "llama-tiny") {
    c.vocab_size = 512, c.hidden_size = 256, c.intermediate_size = 688, c.num_layers = 4;
    c.num_heads = 8, c.num_kv_heads = 4, c.rms_norm_eps = 1e-5, c.rope_theta = 10000.0;
    c.max_position_embeddings = 2048;
  } else {
    return std::nullopt;
  }
  c.head_dim = c.hidden_size / c.num_heads;
  return c;
}

llm_config parse_hf_llm_config(const std::string& text, const std::string& source) {
  json j;
  try {
    j = json::parse(text);
  } catch (const json::exception& e) {
    throw input_error(fmt::format("{}: malformed JSON: {}", source, e.what()));
  }
  if (!j.is_object()) throw input_error(fmt::format("{}: expected a JSON object", source));

  const std::string model_type = j.value("model_type", std::string("llama"));
  if (model_type != "llama" && model_type != "mistral")
    throw unsupported_error(fmt::format(
        "{}: model_type: \"{}\" is not a Llama-family decoder (expected llama or mistral)", source, model_type));
  const std::string act = j.value("hidden_act", std::string("silu"));
  if (act != "silu")
    throw unsupported_error(
        fmt::format("{}: hidden_act: \"{}\" is not supported (the MLP is SwiGLU: silu)", source, act));
  for (const char* key : {"attention_bias", "mlp_bias"})
    if (optional_bool(j, key, false, source))
      throw unsupported_error(fmt::format("{}: {}: projections with biases are not supported", source, key));
  if (j.contains("sliding_window") && !j["sliding_window"].is_null())
    throw unsupported_error(fmt::format("{}: sliding_window: sliding-window attention is not supported", source));

  llm_config c;
  c.name = source;
  c.vocab_size = required_positive_int(j, "vocab_size", source);
  c.hidden_size = required_positive_int(j, "hidden_size", source);
  c.intermediate_size = required_positive_int(j, "intermediate_size", source);
  c.num_layers = required_positive_int(j, "num_hidden_layers", source);
  c.num_heads = required_positive_int(j, "num_attention_heads", source);
  c.num_kv_heads = optional_positive_int(j, "num_key_value_heads", c.num_heads, source);
  if (c.hidden_size % c.num_heads != 0 && !(j.contains("head_dim") && !j["head_dim"].is_null()))
    throw input_error(
        fmt::format("{}: hidden_size {} is not a multiple of num_attention_heads {} (and no head_dim is given)", source,
                    c.hidden_size, c.num_heads));
  c.head_dim = optional_positive_int(j, "head_dim", c.hidden_size / c.num_heads, source);
  c.rms_norm_eps = optional_positive_number(j, "rms_norm_eps", 1e-6, source);
  c.max_position_embeddings = optional_positive_int(j, "max_position_embeddings", 2048, source);
  c.tie_word_embeddings = optional_bool(j, "tie_word_embeddings", false, source);
  read_rope(j, c, source);

  if (c.num_heads % c.num_kv_heads != 0)
    throw input_error(fmt::format("{}: num_attention_heads {} is not a multiple of num_key_value_heads {}", source,
                                  c.num_heads, c.num_kv_heads));
  if (c.head_dim % 2 != 0)
    throw input_error(fmt::format("{}: head_dim {} is odd (rotary embeddings rotate pairs)", source, c.head_dim));
  if (c.head_dim > 256)
    throw unsupported_error(
        fmt::format("{}: head_dim {} is larger than the attention kernels' 256", source, c.head_dim));
  return c;
}

llm_config load_llm_config(const std::string& preset_or_dir) {
  if (auto preset = llm_preset(preset_or_dir)) return *preset;
  namespace fs = std::filesystem;
  const fs::path dir(preset_or_dir);
  if (!fs::is_directory(dir)) {
    std::string names;
    for (const auto& n : llm_preset_names()) names += (names.empty() ? "" : ", ") + n;
    throw input_error(fmt::format("model \"{}\": neither a preset ({}) nor a directory", preset_or_dir, names));
  }
  const fs::path file = dir / "config.json";
  std::ifstream in(file);
  if (!in) throw input_error(fmt::format("{}: cannot open (a model directory needs config.json)", file.string()));
  std::stringstream ss;
  ss << in.rdbuf();
  llm_config c = parse_hf_llm_config(ss.str(), file.string());
  c.name = preset_or_dir;
  return c;
}

}  // namespace cudabench
