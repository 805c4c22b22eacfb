// The run/env commands where no GPU is needed or none is present: dry runs, option errors
// (exit 2), and plain "no CUDA device" failures (exit 3) instead of crashes.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

TEST(CliRun, NoArgumentsPrintsHelp) {
  const auto r = run_cudabench("");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.output.find("Subcommands:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("cudabench compare base.json new.json"), std::string::npos);
}

TEST(CliRun, DryRunExpandsTheQuickSuiteWithoutAGpu) {
  const auto r = run_cudabench("--suite quick --dry-run --format json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["suite"]["name"], "quick");
  EXPECT_EQ(j["settings"]["repetitions"], 5);
  ASSERT_GT(j["workloads"].size(), 0u);
  EXPECT_EQ(j["workloads"][0]["id"], "matmul/dtype=fp32/m=4096/n=4096/k=4096");
  for (const auto& w : j["workloads"])
    EXPECT_EQ(w["id"].get<std::string>().rfind(w["kind"].get<std::string>() + "/", 0), 0u) << w["id"];
}

TEST(CliRun, DryRunAppliesFilterAndOverrides) {
  const auto r = run_cudabench("run --suite quick --dry-run --filter 'matmul/dtype=bf16/*' --reps 3 --warmup 1");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("2 workloads, 3 repetitions, 1 warm-up"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("[1] matmul/dtype=bf16/m=4096/n=4096/k=4096"), std::string::npos);
  EXPECT_NE(r.output.find("[2] matmul/dtype=bf16/m=8192/n=8192/k=8192"), std::string::npos);
}

TEST(CliRun, BadInputExitsTwo) {
  auto r = run_cudabench("--suite does-not-exist --dry-run");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("suite \"does-not-exist\" not found"), std::string::npos) << r.output;
  r = run_cudabench("--suite quick --dry-run --filter 'nomatch*'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--filter \"nomatch*\" matches none of the"), std::string::npos) << r.output;
  r = run_cudabench("--suite quick --dry-run --format xml");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("unknown format \"xml\""), std::string::npos) << r.output;
  r = run_cudabench("--suite quick --dry-run --mem-limit 24XB");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("--mem-limit"), std::string::npos) << r.output;
  r = run_cudabench("--suite quick --dry-run --reps 0");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = run_cudabench("--suite quick --no-such-option");
  EXPECT_EQ(r.exit_code, 2) << r.output;
}

// With a GPU, env prints the device; without one it must say so plainly and exit 3 (CI has none).
TEST(CliRun, EnvReportsTheDeviceOrItsAbsence) {
  const auto r = run_cudabench("env");
  if (r.exit_code == 0) {
    EXPECT_NE(r.output.find("compute_capability:"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("cuda_toolkit:"), std::string::npos) << r.output;
  } else {
    EXPECT_EQ(r.exit_code, 3) << r.output;
    EXPECT_NE(r.output.find("cudabench: error:"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("terminate called"), std::string::npos) << r.output;
    // The build section is printed before the device is probed.
    EXPECT_NE(r.output.find("cuda_compiler:"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("cuda_libraries:"), std::string::npos) << r.output;
  }
}

// Without a GPU a run exits 3 with a plain message; with one, a tiny filtered run succeeds.
TEST(CliRun, RunExitsThreeWithoutGpu) {
  const auto r = run_cudabench(
      "--suite quick --filter 'memory_bandwidth/op=memset*' --no-output -q --reps 1 "
      "--warmup 0 --min-time-ms 1");
  if (r.exit_code == 0) {
    EXPECT_NE(r.output.find("memory_bandwidth/op=memset"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find(" ok "), std::string::npos) << r.output;
  } else {
    EXPECT_EQ(r.exit_code, 3) << r.output;
    EXPECT_NE(r.output.find("cudabench: error:"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("terminate called"), std::string::npos) << r.output;
  }
}
