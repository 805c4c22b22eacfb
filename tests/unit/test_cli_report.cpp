// `cudabench report` through the real binary: the page is written, options are compare's, and bad
// input is exit 2 naming the file (nothing half-written is left behind).
#include <cstdio>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "cli_runner.hpp"
#include "test_support.hpp"

using cudabench::test::data_path;
using cudabench::test::read_text;
using cudabench::test::temp_path;

TEST(CliReport, WritesOneSelfContainedPage) {
  const std::string out = temp_path("report.html");
  const auto r = run_cudabench("report " + data_path("results/cu121.json") + " " + data_path("results/cu124.json") +
                               " " + data_path("results/cu126.json") + " -o " + out + " --title 'Three toolkits'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("report: wrote " + out), std::string::npos);
  const std::string html = read_text(out);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("<title>Three toolkits</title>"), std::string::npos);
  EXPECT_NE(html.find("CUDA 12.4 vs CUDA 12.1: 1 improved, 1 regressed"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(out + ".tmp"));
  std::filesystem::remove(out);
}

TEST(CliReport, OneFileAndCompareOptions) {
  const std::string out = temp_path("report1.html");
  auto r = run_cudabench("report " + data_path("results/cu121.json") + " -o " + out + " --quiet --filter 'matmul/*'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output, "");
  EXPECT_EQ(read_text(out).find("memory_bandwidth/"), std::string::npos);
  r = run_cudabench("report " + data_path("results/cu121.json") + " " + data_path("results/cu124.json") + " -o " + out +
                    " --quiet --threshold 50 --alpha 0.01 --metric tflops");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(read_text(out).find("alpha 0.01, threshold 50%"), std::string::npos);
  std::filesystem::remove(out);
}

TEST(CliReport, PowerIsCompares) {
  // The page states the power its mde column was computed with, and it is the one given.
  const std::string out = temp_path("report_power.html");
  const std::string files = data_path("results/cu121.json") + " " + data_path("results/cu124.json");
  auto r = run_cudabench("report " + files + " -o " + out + " --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string at_default = read_text(out);
  r = run_cudabench("report " + files + " -o " + out + " --quiet --power 0.5");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string at_half = read_text(out);
  EXPECT_NE(at_default.find("(80% power)"), std::string::npos);
  EXPECT_NE(at_half.find("(50% power)"), std::string::npos);
  r = run_cudabench("report " + files + " -o " + out + " --quiet --power 0");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--power 0 must be between 0 and 1"), std::string::npos) << r.output;
  std::filesystem::remove(out);
}

TEST(CliReport, BadInputIsExitTwoNamingTheFile) {
  const std::string out = temp_path("report_bad.html");
  auto r = run_cudabench("report " + data_path("results/malformed.json") + " -o " + out);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("malformed.json"), std::string::npos) << r.output;
  r = run_cudabench("report " + data_path("results/cu121.json") + " " + data_path("results/disjoint.json") + " -o " +
                    out);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("no workload in common"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_FALSE(std::filesystem::exists(out + ".tmp"));
  r = run_cudabench("report " + data_path("results/cu121.json") + " --alpha 2 -o " + out);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = run_cudabench("report -o " + out);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = run_cudabench("report " + data_path("results/cu121.json") + " -o /nonexistent-dir/r.html");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("/nonexistent-dir/r.html"), std::string::npos) << r.output;
}

TEST(CliReport, OneFileWithASelectionThatMatchesNothingIsAnError) {
  // As compare says it for several files: no page of "0 workloads" written with exit 0.
  const std::string out = temp_path("report_nothing.html");
  const std::string file = data_path("results/cu121.json");
  auto r = run_cudabench("report " + file + " --filter 'zzz*' -o " + out);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--filter zzz*: no workload of " + file + " matches"), std::string::npos) << r.output;
  r = run_cudabench("report " + file + " --metric nosuch -o " + out);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("no workload of " + file + " has the requested metric(s) nosuch (it has: "),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(std::filesystem::exists(out));
  r = run_cudabench("report " + file + " --filter 'matmul/*' --metric tflops -o " + out + " --quiet");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  std::remove(out.c_str());
}
