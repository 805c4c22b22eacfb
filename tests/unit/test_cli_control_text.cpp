// Names and labels with ANSI escapes, NUL or a right-to-left override reach no terminal raw and
// no file name: run --dry-run, list, compare and the default result file name.
#include <cstdio>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "test_support.hpp"

using cudabench::test::data_path;
using cudabench::test::read_text;
using cudabench::test::temp_path;
using cudabench::test::write_text;

namespace {

bool has_raw_control(const std::string& s) {
  for (unsigned char c : s)
    if ((c < 0x20 && c != '\n') || c == 0x7f) return true;
  return s.find("\u202E") != std::string::npos;
}

// A suite named "<ESC>[31mred<NUL><RLO>txt" (JSON escapes, so the file itself is plain ASCII).
const char* kHostileSuite =
    R"({"name": "\u001b[31mred\u0000\u202Etxt", "description": "\u001b]0;title\u0007",
        "workloads": [{"kind": "matmul", "dtype": "fp16", "m": 64, "n": 64, "k": 64}]})";

}  // namespace

TEST(CliControlText, SuiteNameIsEscapedAndTheDefaultFileNameSanitised) {
  const std::string path = temp_path("hostile_name.json");
  write_text(path, kHostileSuite);
  const auto plan = run_cudabench("--suite " + path + " --dry-run");
  ASSERT_EQ(plan.exit_code, 0) << plan.output;
  EXPECT_FALSE(has_raw_control(plan.output)) << plan.output;
  EXPECT_NE(plan.output.find("suite \\x1b[31mred\\x00\\u{202e}txt ("), std::string::npos) << plan.output;
  // cudabench-<sanitised name>-<UTC stamp>.json, writable in the current directory.
  EXPECT_NE(plan.output.find("result file: cudabench-_31mred_txt-"), std::string::npos) << plan.output;
  const auto list = run_cudabench("list --suite " + path);
  ASSERT_EQ(list.exit_code, 0) << list.output;
  EXPECT_FALSE(has_raw_control(list.output)) << list.output;
  EXPECT_NE(list.output.find(": \\x1b]0;title\\x07"), std::string::npos) << list.output;
  std::remove(path.c_str());
}

TEST(CliControlText, ParameterStringsWithControlCharactersAreRefused) {
  const std::string path = temp_path("hostile_param.json");
  write_text(path, R"({"name": "p", "workloads": [{"kind": "llm_decode", "model": "llama-tiny\u001b[2J"}]})");
  const auto r = run_cudabench("validate " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(has_raw_control(r.output)) << r.output;
  EXPECT_NE(r.output.find(R"(workloads[0].model: "llama-tiny\u001b[2J" contains a control character)"),
            std::string::npos)
      << r.output;
  std::remove(path.c_str());
}

TEST(CliControlText, CompareEscapesLabelsIdsAndMessages) {
  auto j = nlohmann::json::parse(read_text(data_path("results/cu124.json")));
  j["environment"]["label"] = "\x1b[31mCUDA\u202E 12.4\x07";
  j["workloads"][0]["message"] = "bad\x1b[2J";
  j["workloads"][0]["status"] = "error";
  const std::string cand = temp_path("hostile_label.json");
  write_text(cand, j.dump(2));
  for (const char* format : {"table", "markdown", "csv"}) {
    const auto r = run_cudabench("compare " + data_path("results/cu121.json") + " " + cand + " --format " + format);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_FALSE(has_raw_control(r.output)) << format << "\n" << r.output;
    EXPECT_NE(r.output.find("\\x1b[31mCUDA\\u{202e} 12.4\\x07"), std::string::npos) << format << "\n" << r.output;
  }
  // JSON output keeps the label as data, escaped as JSON (\u001b, \u202e).
  const auto r = run_cudabench("compare " + data_path("results/cu121.json") + " " + cand + " --format json");
  EXPECT_FALSE(has_raw_control(r.output)) << r.output;
  EXPECT_NE(r.output.find(R"("label": "\u001b[31mCUDA\u202e 12.4\u0007")"), std::string::npos) << r.output;
  EXPECT_EQ(nlohmann::json::parse(r.output)["files"][1]["label"], "\x1b[31mCUDA\u202E 12.4\x07");
  std::remove(cand.c_str());
}

TEST(CliControlText, ErrorMessagesAreOneEscapedLine) {
  const std::string path = temp_path("hostile_key.json");
  write_text(path, R"({"name": "k", "workloads": [{"kind": "matmul", "\u001b[31mevil\nkey": 1}]})");
  const auto r = run_cudabench("validate " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(has_raw_control(r.output)) << r.output;
  EXPECT_NE(r.output.find("unknown key \"\\x1b[31mevil\\nkey\""), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find('\n'), r.output.size() - 1) << r.output;
  std::remove(path.c_str());
}
