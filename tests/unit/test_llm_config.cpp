// llm_config: presets, Hugging Face config.json parsing, defaults and every refusal message.
#include <filesystem>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "cudabench/errors.hpp"
#include "cudabench/llm_config.hpp"

using namespace cudabench;
namespace fs = std::filesystem;

namespace {
// What transformers' LlamaConfig(...).save_pretrained writes for a small model (abridged).
const std::string kSmall = R"({
  "architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_act": "silu",
  "vocab_size": 1000, "hidden_size": 256, "intermediate_size": 700, "num_hidden_layers": 2,
  "num_attention_heads": 8, "num_key_value_heads": 2, "rms_norm_eps": 1e-05,
  "rope_theta": 10000.0, "rope_scaling": null, "max_position_embeddings": 512,
  "tie_word_embeddings": false, "attention_bias": false, "mlp_bias": false, "torch_dtype": "float16"
})";

std::string message_of(const std::string& text) {
  try {
    parse_hf_llm_config(text, "cfg.json");
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}
}  // namespace

TEST(LlmConfig, Llama2_7bPresetHasTheSeedShape) {
  const auto c = llm_preset("llama-2-7b");
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->vocab_size, 32000);
  EXPECT_EQ(c->hidden_size, 4096);
  EXPECT_EQ(c->intermediate_size, 11008);
  EXPECT_EQ(c->num_layers, 32);
  EXPECT_EQ(c->num_heads, 32);
  EXPECT_EQ(c->num_kv_heads, 32);
  EXPECT_EQ(c->head_dim, 128);
  EXPECT_DOUBLE_EQ(c->rms_norm_eps, 1e-5);
  EXPECT_DOUBLE_EQ(c->rope_theta, 10000.0);
  EXPECT_EQ(c->qkv_rows(), 3 * 4096);
  // Llama-2-7B has 6,738,415,616 parameters.
  EXPECT_EQ(c->parameter_count(), 6738415616LL);
}

TEST(LlmConfig, TinyPresetIsGroupedQuery) {
  const auto c = llm_preset("llama-tiny");
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->head_dim, 32);
  EXPECT_EQ(c->group_size(), 2);
  EXPECT_EQ(c->qkv_rows(), 256 + 2 * 128);
  EXPECT_FALSE(llm_preset("llama-2-70b").has_value());
  EXPECT_EQ(llm_preset_names().size(), 3u);
}

TEST(LlmConfig, Llama3_8bPresetCount) {
  const auto c = llm_preset("llama-3-8b");
  ASSERT_TRUE(c.has_value());
  // Meta-Llama-3-8B: 8,030,261,248 parameters.
  EXPECT_EQ(c->parameter_count(), 8030261248LL);
}

TEST(LlmConfig, ParsesASmallHfConfig) {
  const auto c = parse_hf_llm_config(kSmall, "cfg.json");
  EXPECT_EQ(c.vocab_size, 1000);
  EXPECT_EQ(c.hidden_size, 256);
  EXPECT_EQ(c.intermediate_size, 700);
  EXPECT_EQ(c.num_layers, 2);
  EXPECT_EQ(c.num_heads, 8);
  EXPECT_EQ(c.num_kv_heads, 2);
  EXPECT_EQ(c.head_dim, 32);
  EXPECT_EQ(c.max_position_embeddings, 512);
  EXPECT_FALSE(c.tie_word_embeddings);
}

TEST(LlmConfig, DefaultsFollowTransformers) {
  const auto c = parse_hf_llm_config(
      R"({"vocab_size": 10, "hidden_size": 64, "intermediate_size": 100, "num_hidden_layers": 1,
          "num_attention_heads": 4})",
      "cfg.json");
  EXPECT_EQ(c.num_kv_heads, 4);  // num_key_value_heads defaults to num_attention_heads
  EXPECT_EQ(c.head_dim, 16);
  EXPECT_DOUBLE_EQ(c.rms_norm_eps, 1e-6);
  EXPECT_DOUBLE_EQ(c.rope_theta, 10000.0);
  EXPECT_EQ(c.max_position_embeddings, 2048);
}

TEST(LlmConfig, ExplicitHeadDimAndRopeParameters) {
  const auto c = parse_hf_llm_config(
      R"({"vocab_size": 10, "hidden_size": 64, "intermediate_size": 100, "num_hidden_layers": 1,
          "num_attention_heads": 4, "head_dim": 32, "tie_word_embeddings": true,
          "rope_parameters": {"rope_type": "default", "rope_theta": 500000.0}})",
      "cfg.json");
  EXPECT_EQ(c.head_dim, 32);
  EXPECT_EQ(c.q_dim(), 128);
  EXPECT_TRUE(c.tie_word_embeddings);
  EXPECT_DOUBLE_EQ(c.rope_theta, 500000.0);
}

TEST(LlmConfig, RefusalsNameTheKey) {
  EXPECT_EQ(message_of("{").rfind("cfg.json: malformed JSON", 0), 0u);
  EXPECT_EQ(message_of(R"({"hidden_size": 64})"), "cfg.json: vocab_size: missing (a positive integer)");
  EXPECT_EQ(message_of(R"({"vocab_size": -3})"), "cfg.json: vocab_size: expected a positive integer, got -3");
  EXPECT_EQ(message_of(R"({"vocab_size": 10, "hidden_size": 64, "intermediate_size": 100, "num_hidden_layers": 1,
                           "num_attention_heads": 4, "num_key_value_heads": 3})"),
            "cfg.json: num_attention_heads 4 is not a multiple of num_key_value_heads 3");
  EXPECT_EQ(message_of(R"({"vocab_size": 10, "hidden_size": 64, "intermediate_size": 100, "num_hidden_layers": 1,
                           "num_attention_heads": 5})"),
            "cfg.json: hidden_size 64 is not a multiple of num_attention_heads 5 (and no head_dim is given)");
  EXPECT_EQ(message_of(R"({"model_type": "gpt2"})"),
            "cfg.json: model_type: \"gpt2\" is not a Llama-family decoder (expected llama or mistral)");
  EXPECT_EQ(message_of(R"({"hidden_act": "gelu"})"),
            "cfg.json: hidden_act: \"gelu\" is not supported (the MLP is SwiGLU: silu)");
  EXPECT_EQ(message_of(R"({"attention_bias": true})"),
            "cfg.json: attention_bias: projections with biases are not supported");
}

TEST(LlmConfig, RopeScalingIsUnsupported) {
  try {
    parse_hf_llm_config(R"({"vocab_size": 10, "hidden_size": 64, "intermediate_size": 100, "num_hidden_layers": 1,
                            "num_attention_heads": 4, "rope_scaling": {"rope_type": "llama3", "factor": 8.0}})",
                        "cfg.json");
    FAIL() << "rope_scaling llama3 accepted";
  } catch (const unsupported_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "cfg.json: rope_scaling: rope_type \"llama3\" is not supported (only the plain rotary embedding, "
              "rope_type \"default\")");
  }
  // The trivial form is accepted.
  const auto c = parse_hf_llm_config(R"({"vocab_size": 10, "hidden_size": 64, "intermediate_size": 100,
      "num_hidden_layers": 1, "num_attention_heads": 4, "rope_scaling": {"type": "default"}})",
                                     "cfg.json");
  EXPECT_EQ(c.num_layers, 1);
}

TEST(LlmConfig, LoadsPresetOrDirectory) {
  EXPECT_EQ(load_llm_config("llama-tiny").hidden_size, 256);
  const fs::path dir = fs::temp_directory_path() / "cudabench_llm_config_test";
  fs::create_directories(dir);
  { std::ofstream(dir / "config.json") << kSmall; }
  const auto c = load_llm_config(dir.string());
  EXPECT_EQ(c.intermediate_size, 700);
  EXPECT_EQ(c.name, dir.string());
  try {
    load_llm_config("no-such-model");
    FAIL();
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()),
              "model \"no-such-model\": neither a preset (llama-2-7b, llama-3-8b, llama-tiny) nor a directory");
  }
  fs::remove(dir / "config.json");
  try {
    load_llm_config(dir.string());
    FAIL();
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()),
              (dir / "config.json").string() + ": cannot open (a model directory needs config.json)");
  }
}
