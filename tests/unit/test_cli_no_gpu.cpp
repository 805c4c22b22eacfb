// On a machine without an NVIDIA driver (CI, this test's usual home): run says that no driver or
// GPU was found -- not that "the driver (none) is older than the runtime" -- and that compare,
// validate and list work without one, exit 3; env still prints the build and the libraries.
// On a GPU box these cases skip.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"

namespace {
bool has_gpu() { return run_cudabench("env").exit_code == 0; }
}  // namespace

TEST(CliNoGpu, RunSaysNoDriverOrGpuAndWhatStillWorks) {
  if (has_gpu()) GTEST_SKIP() << "this machine has a usable GPU";
  const auto r = run_cudabench("--suite quick --filter 'memory_bandwidth/op=memset*' --no-output -q");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_EQ(r.output.rfind("cudabench: error: no NVIDIA ", 0), 0u) << r.output;
  EXPECT_NE(r.output.find("compare, validate and list work without one"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("(none) is older"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find('\n'), r.output.size() - 1) << "one line:\n" << r.output;
}

TEST(CliNoGpu, EnvPrintsTheBuildAndLibrariesThenTheProblem) {
  if (has_gpu()) GTEST_SKIP() << "this machine has a usable GPU";
  const auto r = run_cudabench("env");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  for (const char* key : {"build:", "cuda_toolkit:", "cuda_architectures:", "compiler:", "cublas_headers:",
                          "environment:", "cuda_runtime:", "cublas:", "cublas_library:", "gpu:  ", "none: no NVIDIA "})
    EXPECT_NE(r.output.find(key), std::string::npos) << key << "\n" << r.output;
  EXPECT_NE(r.output.find("cudabench: error: no NVIDIA "), std::string::npos) << r.output;

  const std::string cmd = std::string(CUDABENCH_BINARY) + " env --json 2>/dev/null";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  pclose(p);
  const auto j = nlohmann::json::parse(out);
  EXPECT_FALSE(j["build"]["cuda_toolkit"].get<std::string>().empty());
  EXPECT_EQ(j["environment"]["gpu"].get<std::string>().rfind("none: no NVIDIA ", 0), 0u);
}
