// run --dry-run as a preflight: it says which workloads --filter removed and whether the result
// file could be written (exit 2 when not, as the run itself would at its first save).
#include <cstdio>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "test_support.hpp"

TEST(CliDryRun, SaysWhatTheFilterRemoved) {
  const auto r = run_cudabench("--suite quick --dry-run --filter 'matmul/dtype=bf16/*' --no-output");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("filter \"matmul/dtype=bf16/*\" keeps 2 of "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("; removed: matmul/dtype=fp32/m=4096/n=4096/k=4096, "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("result file: none (--no-output)"), std::string::npos) << r.output;

  const auto j = nlohmann::json::parse(
      run_cudabench("--suite quick --dry-run --filter 'matmul/dtype=bf16/*' -o /tmp/x.json --format json").output);
  EXPECT_EQ(j["filter"]["kept"], 2);
  EXPECT_GT(j["filter"]["removed"].size(), 0u);
  EXPECT_EQ(j["filter"]["removed"][0], "matmul/dtype=fp32/m=4096/n=4096/k=4096");
  EXPECT_EQ(j["output"]["path"], "/tmp/x.json");
  EXPECT_EQ(j["output"]["writable"], true);
}

TEST(CliDryRun, LongRemovalListsAreCut) {
  const auto r = run_cudabench("--suite quick --dry-run --filter 'llm_decode/*' --no-output");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(" more\n"), std::string::npos) << r.output;
}

TEST(CliDryRun, UnwritableOutputIsExitTwo) {
  struct bad {
    std::string output, words;
  };
  for (const auto& b :
       {bad{"/nonexistent-dir/r.json", "its directory /nonexistent-dir does not exist"},
        bad{"/tmp", "it is a directory"}, bad{"/etc/hostname/r.json", "/etc/hostname is not a directory"}}) {
    const auto r = run_cudabench("--suite quick --dry-run -o " + b.output);
    EXPECT_EQ(r.exit_code, 2) << b.output << "\n" << r.output;
    EXPECT_NE(r.output.find("result file: " + b.output + " (cannot be written: " + b.words + ")"), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("cudabench: error: -o " + b.output + ": cannot be written: " + b.words), std::string::npos)
        << r.output;
  }
  const auto ok = run_cudabench("--suite quick --dry-run -o /tmp/cudabench-dry-run-ok.json");
  EXPECT_EQ(ok.exit_code, 0) << ok.output;
  EXPECT_NE(ok.output.find("result file: /tmp/cudabench-dry-run-ok.json (writable)"), std::string::npos) << ok.output;
}

TEST(CliDryRun, SaysWhenTheRunWouldReplaceAFile) {
  const std::string path = cudabench::test::temp_path("dry_run_existing.json");
  cudabench::test::write_text(path, "{}");
  const auto r = run_cudabench("--suite quick --dry-run -o " + path);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("result file: " + path + " (writable; the run replaces the file there)"), std::string::npos)
      << r.output;
  const auto j = nlohmann::json::parse(run_cudabench("--suite quick --dry-run --format json -o " + path).output);
  EXPECT_EQ(j["output"]["exists"], true);
  std::remove(path.c_str());
}
