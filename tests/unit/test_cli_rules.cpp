// validate refuses what run refuses: every rule the real kinds state in `list --kinds` is checked
// when the suite is loaded (validate, list, run --dry-run), with no GPU.
#include <cstdio>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "test_support.hpp"

using cudabench::test::temp_path;
using cudabench::test::write_text;

namespace {

// validate, list and run --dry-run on a suite of one entry: all exit 2 with `words`.
void expect_refused(const std::string& entry, const std::string& words) {
  const std::string path = temp_path("rule_suite.json");
  write_text(path, R"({"name": "r", "workloads": [)" + entry + "]}");
  for (const std::string cmd : {"validate " + path, "list --suite " + path, "--suite " + path + " --dry-run"}) {
    const auto r = run_cudabench(cmd);
    EXPECT_EQ(r.exit_code, 2) << cmd << "\n" << r.output;
    EXPECT_NE(r.output.find(words), std::string::npos) << cmd << "\n" << r.output;
    EXPECT_EQ(r.output.rfind("cudabench: error: " + path + ": workloads[0].", 0), 0u) << r.output;
  }
  std::remove(path.c_str());
}

}  // namespace

TEST(CliRules, LlmDecodeLengthsAndModel) {
  expect_refused(R"({"kind": "llm_decode", "model": "llama-tiny", "prompt_tokens": 128, "max_length": [256, 129]})",
                 "max_length: 129 must be at least prompt_tokens + 2 = 130");
  expect_refused(R"({"kind": "llm_decode", "model": "llama-tiny", "prompt_tokens": 100, "max_length": 4096})",
                 "max_length: 4096 exceeds the model's max_position_embeddings 2048 (llama-tiny)");
  expect_refused(R"({"kind": "llm_decode", "model": "/nonexistent/llama-7b"})",
                 "model: expected one of llama-2-7b, llama-3-8b, llama-tiny or a directory holding config.json: "
                 "\"/nonexistent/llama-7b\" does not exist");
  expect_refused(R"({"kind": "llm_decode", "model": "llama-2-7b", "weights": "checkpoint"})",
                 "model: with weights checkpoint, expected a directory holding model.safetensors or "
                 "model.safetensors.index.json");
}

TEST(CliRules, ResnetAndTransformerWeightsAndSizes) {
  expect_refused(R"({"kind": "resnet50", "batch": 8, "image_size": [224, 200]})",
                 "image_size: 200 is not a multiple of 32");
  expect_refused(R"({"kind": "resnet50", "batch": 8, "weights": "/nonexistent/resnet50.safetensors"})",
                 "weights: expected random or a file in safetensors format: \"/nonexistent/resnet50.safetensors\" does "
                 "not exist");
  expect_refused(R"({"kind": "transformer_memory", "batch": 8, "weights": "/tmp"})", "\"/tmp\" is a directory");
}

TEST(CliRules, ListKindsStatesTheRules) {
  const auto text = run_cudabench("list --kinds");
  ASSERT_EQ(text.exit_code, 0) << text.output;
  for (const char* rule :
       {"  rule: max_length >= prompt_tokens + 2",
        "  rule: max_length <= max_position_embeddings of the model (its preset or config.json)",
        "  rule: image_size is a multiple of 32", "  rule: weights is random or an existing file in safetensors format",
        "  rule: when weights is checkpoint: model is a directory holding model.safetensors or "
        "model.safetensors.index.json"})
    EXPECT_NE(text.output.find(rule), std::string::npos) << rule;
  const auto json = run_cudabench("list --kinds --format json");
  ASSERT_EQ(json.exit_code, 0);
  const auto j = nlohmann::json::parse(json.output);
  for (const auto& k : j.at("kinds"))
    if (k.at("kind") == "resnet50") EXPECT_EQ(k.at("rules").at(0), "image_size is a multiple of 32");
}

TEST(CliRules, ShippedSuitesStillValidate) {
  std::string files;
  for (const char* suite : {"quick", "full", "sanitize", "train-backward", "llm-profile"})
    files += std::string(" ") + CUDABENCH_CONFIG_DIR + "/" + suite + ".json";
  const auto r = run_cudabench("validate" + files);
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

// scripts/gpu-tests.sh sanitize runs compute-sanitizer over configs/sanitize.json: it only proves
// the kernels of the kinds it holds, so it must hold every kind the binary registers.
TEST(CliRules, SanitizeSuiteHoldsEveryKind) {
  const auto kinds = run_cudabench("list --kinds --format json");
  ASSERT_EQ(kinds.exit_code, 0) << kinds.output;
  const auto plan = run_cudabench(std::string("--suite ") + CUDABENCH_CONFIG_DIR + "/sanitize.json --dry-run");
  ASSERT_EQ(plan.exit_code, 0) << plan.output;
  EXPECT_NE(plan.output.find("20 workloads, 1 repetitions, 0 warm-up"), std::string::npos) << plan.output;
  const auto j = nlohmann::json::parse(kinds.output);  // kept: the loop below refers into it
  int n = 0;
  for (const auto& k : j.at("kinds")) {
    EXPECT_NE(plan.output.find("] " + k.at("kind").get<std::string>() + "/"), std::string::npos) << k.at("kind");
    ++n;
  }
  EXPECT_EQ(n, 6);  // matmul, memory_bandwidth, llm_decode, resnet50, transformer_memory, train_step
}
