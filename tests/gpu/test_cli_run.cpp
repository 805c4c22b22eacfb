// End to end on a GPU: `cudabench --suite quick` writes a result file whose every workload ran,
// validated and produced positive metrics; Ctrl-C keeps what finished.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "cudabench/result.hpp"
#include "gpu_test_fixture.hpp"

namespace fs = std::filesystem;
using namespace cudabench;

namespace {
fs::path temp_path(const std::string& name) { return fs::temp_directory_path() / ("cudabench_e2e_" + name); }
}  // namespace

TEST(CliRunE2E, QuickSuiteResultFileIsComplete) {
  CUDABENCH_REQUIRE_GPU("end-to-end run needs a GPU");
  const fs::path out = temp_path("quick.json");
  fs::remove(out);
  const std::string cmd = std::string(CUDABENCH_BINARY) + " --suite quick --reps 2 --warmup 1 --min-time-ms 2 -q -o " +
                          out.string() + " --strict > " + temp_path("quick.stdout").string();
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const result_file r = read_result_file(out.string());
  EXPECT_EQ(r.schema_version, "1.0");
  EXPECT_FALSE(r.environment["device"]["name"].get<std::string>().empty());
  EXPECT_GT(r.workloads.size(), 3u);
  for (const auto& w : r.workloads) {
    SCOPED_TRACE(w.id);
    // unsupported is a legitimate outcome (fp8 on a pre-Ada GPU); everything else must be ok.
    if (w.state == status::unsupported) continue;
    ASSERT_EQ(w.state, status::ok) << w.message;
    ASSERT_TRUE(w.validation.has_value());
    EXPECT_TRUE(w.validation->passed);
    EXPECT_LE(w.validation->max_rel_error, w.validation->tolerance);
    ASSERT_FALSE(w.metrics.empty());
    for (const auto& [name, m] : w.metrics) {
      EXPECT_FALSE(m.samples.empty()) << name;
      // A count of events that must not happen is 0 on a good run; every measured quantity is > 0.
      if (name == "skipped_steps") EXPECT_EQ(m.median, 0.0) << name;
      else EXPECT_GT(m.median, 0.0) << name;
    }
    ASSERT_TRUE(w.peak_memory_bytes.has_value());
  }
}

TEST(CliRunE2E, InterruptKeepsFinishedWorkloads) {
  CUDABENCH_REQUIRE_GPU("end-to-end run needs a GPU");
  const fs::path out = temp_path("interrupted.json");
  fs::remove(out);
  const pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    execl(CUDABENCH_BINARY, CUDABENCH_BINARY, "--suite", "quick", "--min-time-ms", "200", "-q", "-o", out.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  // Wait until the file holds at least one finished workload, then press Ctrl-C.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  std::size_t finished = 0;
  while (std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    try {
      finished = read_result_file(out.string()).workloads.size();
    } catch (...) {
      finished = 0;
    }
    if (finished >= 1) break;
  }
  ASSERT_GE(finished, 1u);
  kill(pid, SIGINT);
  int st = 0;
  waitpid(pid, &st, 0);
  ASSERT_TRUE(WIFEXITED(st));
  EXPECT_EQ(WEXITSTATUS(st), 130);
  const result_file r = read_result_file(out.string());
  EXPECT_GE(r.workloads.size(), finished);
  for (const auto& w : r.workloads) EXPECT_TRUE(w.state == status::ok || w.state == status::skipped) << w.id;
}
