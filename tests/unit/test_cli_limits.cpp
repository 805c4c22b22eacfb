// --max-workloads on run, list and validate: a suite whose sweeps expand past the limit is exit 2
// before anything is built (a 1 KB suite once asked for 10^10 workloads and ran out of memory),
// naming the axes and the count; the option raises the limit.
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "cli_runner.hpp"
#include "test_support.hpp"

using cudabench::test::temp_path;
using cudabench::test::write_text;

namespace {

std::string axis(int n) {
  std::string s = "[";
  for (int i = 1; i <= n; ++i) s += (i > 1 ? "," : "") + std::to_string(i);
  return s + "]";
}

}  // namespace

TEST(CliLimits, HugeSweepIsRefusedAtOnceByEverySubcommand) {
  const std::string path = temp_path("huge_sweep.json");
  write_text(path, R"({"name": "huge", "workloads": [{"kind": "matmul", "dtype": ["fp16", "bf16"], "m": )" +
                       axis(1000) + R"(, "n": )" + axis(1000) + R"(, "k": )" + axis(1000) + R"(, "batch": )" +
                       axis(5000) + "}]}");
  for (const std::string cmd : {"validate " + path, "list --suite " + path, "--suite " + path + " --dry-run",
                                "run --suite " + path + " --rounds 3 --no-output"}) {
    const auto out = run_cudabench(cmd);
    EXPECT_EQ(out.exit_code, 2) << cmd << "\n" << out.output;
    EXPECT_NE(
        out.output.find("cudabench: error: " + path +
                        ": workloads[0]: expands to 10000000000000 workloads (dtype 2 × m 1000 × n 1000 × k 1000 × "
                        "batch 5000), more than the limit of 100000"),
        std::string::npos)
        << cmd << "\n"
        << out.output;
  }
  std::remove(path.c_str());
}

TEST(CliLimits, MaxWorkloadsRaisesAndLowersTheLimit) {
  const std::string path = temp_path("sweep_2000.json");
  write_text(path, R"({"name": "s", "workloads": [{"kind": "matmul", "dtype": ["fp16", "bf16"], "m": )" + axis(10) +
                       R"(, "n": )" + axis(10) + R"(, "k": )" + axis(10) + "}]}");
  EXPECT_EQ(run_cudabench("validate " + path).exit_code, 0);
  const auto low = run_cudabench("validate " + path + " --max-workloads 1999");
  EXPECT_EQ(low.exit_code, 2) << low.output;
  EXPECT_NE(low.output.find("expands to 2000 workloads (dtype 2 × m 10 × n 10 × k 10), more than the limit of 1999"),
            std::string::npos)
      << low.output;
  EXPECT_EQ(run_cudabench("list --suite " + path + " --max-workloads 2000").exit_code, 0);
  EXPECT_EQ(run_cudabench("--suite " + path + " --dry-run --max-workloads 2000").exit_code, 0);
  for (const char* bad : {"0", "-3", "many"}) {
    const auto r = run_cudabench("validate " + path + " --max-workloads " + bad);
    EXPECT_EQ(r.exit_code, 2) << bad << "\n" << r.output;
    EXPECT_NE(r.output.find("--max-workloads"), std::string::npos) << r.output;
  }
  std::remove(path.c_str());
}

TEST(CliLimits, SuiteRepetitionsFollowTheCommandLinesRange) {
  const std::string path = temp_path("reps.json");
  write_text(path, R"({"name": "r", "defaults": {"repetitions": 1000000000},
                       "workloads": [{"kind": "matmul", "dtype": "fp16", "m": 64, "n": 64, "k": 64}]})");
  const auto r = run_cudabench("validate " + path);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find(path + ": defaults.repetitions: 1000000000 is above the maximum 1000"), std::string::npos)
      << r.output;
  std::remove(path.c_str());
}
