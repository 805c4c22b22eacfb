// Kind rules (kind_schema.hpp) checked by the suite parser: every rule type, on sweeps (the
// message names the expanded workload), with files and directories on disk, and how
// `list --kinds` words them. The test catalog's `ruled` kind carries one rule of each type but one_of,
// which transformer_memory's backward rules cover.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudabench/errors.hpp"
#include "cudabench/kind_rules.hpp"
#include "cudabench/suite.hpp"
#include "test_suite_catalog.hpp"
#include "test_support.hpp"

using namespace cudabench;
using cudabench::test::temp_path;
using cudabench::test::write_text;
namespace fs = std::filesystem;

namespace {

std::string error_of(const std::string& entry) {
  try {
    parse_suite(R"({"name": "t", "workloads": [)" + entry + "]}", "x.json", test::test_catalog());
  } catch (const input_error& e) {
    return e.what();
  }
  return "";
}

// A safetensors file with one F32 tensor [1] (8-byte header length, header, 4 data bytes).
void write_safetensors(const std::string& path) {
  const std::string header = R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}})";
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
  write_text(path, bytes + header + std::string(4, '\0'));
}

const char* kConfig = R"({"vocab_size": 64, "hidden_size": 32, "intermediate_size": 64, "num_hidden_layers": 1,
                          "num_attention_heads": 4, "max_position_embeddings": 300})";

}  // namespace

TEST(KindRules, DefaultsPass) { EXPECT_EQ(error_of(R"({"kind": "ruled"})"), ""); }

TEST(KindRules, MultipleOfAndAtLeastNameTheWorkloadOfTheSweep) {
  EXPECT_EQ(error_of(R"({"kind": "ruled", "size": [224, 200]})"),
            "x.json: workloads[0].size: 200 is not a multiple of 32 (workload "
            "ruled/size=200/prompt=128/length=256/model=llama-tiny/source=random/weights=random)");
  EXPECT_EQ(error_of(R"({"kind": "ruled", "prompt": 128, "length": [256, 129]})"),
            "x.json: workloads[0].length: 129 must be at least prompt + 2 = 130; decode needs a step (workload "
            "ruled/size=224/prompt=128/length=129/model=llama-tiny/source=random/weights=random)");
  EXPECT_EQ(error_of(R"({"kind": "ruled", "prompt": 128, "length": 130})"), "");
}

TEST(KindRules, ModelIsAPresetOrAConfigDirectory) {
  EXPECT_EQ(error_of(R"({"kind": "ruled", "model": "/nonexistent/llama"})")
                .find("x.json: workloads[0].model: expected one of llama-tiny, llama-2-7b or a directory holding "
                      "config.json: \"/nonexistent/llama\" does not exist (workload"),
            0u);
  const std::string dir = temp_path("model_dir");
  fs::remove_all(dir);
  fs::create_directories(dir);
  EXPECT_NE(error_of(R"({"kind": "ruled", "model": ")" + dir + R"("})")
                .find("a directory holding config.json: the directory \"" + dir + "\" holds no config.json"),
            std::string::npos);
  write_text(dir + "/config.json", "{ not json");
  EXPECT_NE(error_of(R"({"kind": "ruled", "model": ")" + dir + R"("})").find(dir + "/config.json: malformed JSON"),
            std::string::npos);
  write_text(dir + "/config.json", kConfig);
  EXPECT_EQ(error_of(R"({"kind": "ruled", "model": ")" + dir + R"(", "length": 300})"), "");
  // The config's max_position_embeddings bounds the length; a preset's is built in (llama-tiny 2048).
  EXPECT_NE(error_of(R"({"kind": "ruled", "model": ")" + dir + R"(", "length": 301})")
                .find("workloads[0].length: 301 exceeds the model's max_position_embeddings 300 (" + dir + ")"),
            std::string::npos);
  EXPECT_NE(
      error_of(R"({"kind": "ruled", "length": 4096})").find("4096 exceeds the model's max_position_embeddings 2048"),
      std::string::npos);
  fs::remove_all(dir);
}

TEST(KindRules, CheckpointRuleAppliesOnlyWhenItsConditionHolds) {
  const std::string dir = temp_path("ckpt_dir");
  fs::remove_all(dir);
  fs::create_directories(dir);
  write_text(dir + "/config.json", kConfig);
  EXPECT_EQ(error_of(R"({"kind": "ruled", "model": ")" + dir + R"(", "source": "random"})"), "");
  EXPECT_NE(error_of(R"({"kind": "ruled", "model": ")" + dir + R"(", "source": "checkpoint"})")
                .find("workloads[0].model: with source checkpoint, expected a directory holding model.safetensors or "
                      "model.safetensors.index.json: the directory"),
            std::string::npos);
  // A preset has no files: with a checkpoint it is refused, with random weights it is fine.
  EXPECT_NE(error_of(R"({"kind": "ruled", "source": "checkpoint"})").find("\"llama-tiny\" does not exist"),
            std::string::npos);
  write_safetensors(dir + "/model.safetensors");
  EXPECT_EQ(error_of(R"({"kind": "ruled", "model": ")" + dir + R"(", "source": "checkpoint"})"), "");
  write_text(dir + "/model.safetensors", "garbage!");
  EXPECT_NE(
      error_of(R"({"kind": "ruled", "model": ")" + dir + R"(", "source": "checkpoint"})").find("model.safetensors"),
      std::string::npos);
  fs::remove_all(dir);
}

TEST(KindRules, WeightsFileMustExistAndBeSafetensors) {
  EXPECT_EQ(error_of(R"({"kind": "ruled", "weights": "/nonexistent/w.safetensors"})")
                .find("x.json: workloads[0].weights: expected random or a file in safetensors format: "
                      "\"/nonexistent/w.safetensors\" does not exist (workload"),
            0u);
  EXPECT_NE(error_of(R"({"kind": "ruled", "weights": "/tmp"})").find("\"/tmp\" is a directory"), std::string::npos);
  const std::string file = temp_path("w.safetensors");
  write_text(file, "{}");
  EXPECT_NE(error_of(R"({"kind": "ruled", "weights": ")" + file + R"("})").find("not a safetensors file"),
            std::string::npos);
  write_safetensors(file);
  EXPECT_EQ(error_of(R"({"kind": "ruled", "weights": ")" + file + R"("})"), "");
  std::remove(file.c_str());
}

TEST(KindRules, DescribedForListKinds) {
  const auto catalog = test::test_catalog();
  std::vector<std::string> lines;
  for (const auto& k : catalog)
    if (k.kind == "ruled")
      for (const auto& r : k.rules) lines.push_back(describe_rule(r));
  EXPECT_EQ(lines,
            (std::vector<std::string>{
                "size is a multiple of 32",
                "length >= prompt + 2",
                "model is one of llama-tiny, llama-2-7b or a directory holding config.json (a Llama-family config)",
                "when source is checkpoint: model is a directory holding model.safetensors or "
                "model.safetensors.index.json (readable safetensors)",
                "length <= max_position_embeddings of the model (its preset or config.json)",
                "weights is random or an existing file in safetensors format",
            }));
}

TEST(KindRules, OneOfSaysWhatAnOptionNeedsEvenWhenTheSettingIsAbsent) {
  // transformer_memory's backward reads what train mode keeps and is fp32 only: validate refuses
  // the row before run would, naming the setting, what it is (or that it is unset) and why.
  EXPECT_EQ(error_of(R"({"kind": "transformer_memory", "batch": 2, "backward": true})"),
            "x.json: workloads[0].mode: with backward true, mode is not set; it must be train; the backward reads the "
            "tensors train mode keeps (workload transformer_memory/batch=2/seq_len=512/dtype=fp32/backward=true)");
  EXPECT_EQ(error_of(R"({"kind": "transformer_memory", "batch": 2, "mode": "inference", "backward": true})"),
            "x.json: workloads[0].mode: with backward true, mode is inference; it must be train; the backward reads "
            "the tensors train mode keeps (workload "
            "transformer_memory/batch=2/seq_len=512/dtype=fp32/mode=inference/backward=true)");
  EXPECT_EQ(
      error_of(R"({"kind": "transformer_memory", "batch": 2, "mode": "train", "dtype": "fp16", "backward": true})"),
      "x.json: workloads[0].dtype: with backward true, dtype is fp16; it must be fp32; the backward is "
      "implemented in fp32 only (workload transformer_memory/batch=2/seq_len=512/dtype=fp16/mode=train/"
      "backward=true)");
  // The absent dtype is its default, fp32; backward false and no backward at all need nothing.
  EXPECT_EQ(error_of(R"({"kind": "transformer_memory", "batch": 2, "mode": "train", "backward": true})"), "");
  EXPECT_EQ(error_of(R"({"kind": "transformer_memory", "batch": 2, "dtype": "fp16", "backward": false})"), "");
  EXPECT_EQ(error_of(R"({"kind": "transformer_memory", "batch": 2, "dtype": "fp16"})"), "");
  std::vector<std::string> lines;
  for (const auto& k : test::test_catalog())
    if (k.kind == "transformer_memory")
      for (const auto& r : k.rules) lines.push_back(describe_rule(r));
  EXPECT_EQ(lines,
            (std::vector<std::string>{"weights is random or an existing file in safetensors format",
                                      "when backward is true: mode is train", "when backward is true: dtype is fp32"}));
}
