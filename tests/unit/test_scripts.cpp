// The scripts' command lines (bootstrap.sh, gpu-tests.sh, toolkit-from-wheels.sh): --help prints
// exactly the usage (the comment block at the top, without its '#'), a missing option value or an
// unknown option is exit 2 with the usage on stderr, and relative paths are the caller's. Nothing
// here builds or downloads anything.
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace {

struct run_result {
  int exit_code = -1;
  std::string out, err;
};

const std::string k_scripts = std::string(CUDABENCH_CONFIG_DIR) + "/../scripts/";

// Runs `cmd` in `dir` with stdout and stderr captured apart.
run_result sh(const std::string& cmd, const std::string& dir = "/tmp") {
  const std::string out = cudabench::test::temp_path("script_out"), err = cudabench::test::temp_path("script_err");
  const std::string full = "cd '" + dir + "' && " + cmd + " >'" + out + "' 2>'" + err + "'";
  const int st = std::system(full.c_str());
  run_result r;
  r.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  r.out = cudabench::test::read_text(out);
  r.err = cudabench::test::read_text(err);
  std::remove(out.c_str());
  std::remove(err.c_str());
  return r;
}

// The script's usage: its leading comment block (up to a bare "#" line), without "# ".
std::string usage_of(const std::string& script) {
  const std::string text = cudabench::test::read_text(k_scripts + script);
  std::string usage;
  std::size_t pos = text.find('\n') + 1;  // skip the #! line
  while (pos < text.size() && text[pos] == '#') {
    const std::size_t end = text.find('\n', pos);
    std::string line = text.substr(pos, end - pos);
    if (line == "#") break;
    usage += line.substr(line.rfind("# ", 0) == 0 ? 2 : 1) + "\n";
    pos = end + 1;
  }
  return usage;
}

}  // namespace

TEST(Scripts, HelpPrintsExactlyTheUsage) {
  for (const char* s : {"bootstrap.sh", "gpu-tests.sh", "toolkit-from-wheels.sh", "llm-profile.sh", "llm-sweep.sh"})
    for (const char* flag : {"--help", "-h"}) {
      const auto r = sh(k_scripts + s + " " + flag);
      EXPECT_EQ(r.exit_code, 0) << s;
      EXPECT_EQ(r.out, usage_of(s)) << s;
      EXPECT_EQ(r.err, "") << s;
    }
}

// These print their whole leading comment block (the sbatch file's up to its #SBATCH lines): no
// code after it (`set -euo pipefail`), no raw '#', exit 0 -- and the sbatch file runs nothing.
TEST(Scripts, HelpOfTheScriptsWithLongerHeadersIsTheirCommentBlock) {
  for (const char* s :
       {"bench-compare-scale.sh", "check-report.sh", "slurm/local-slurm.sh", "slurm/cudabench-fleet.sbatch"}) {
    const std::string text = cudabench::test::read_text(k_scripts + s);
    std::string usage;
    std::size_t pos = text.find('\n') + 1;
    while (pos < text.size() && text[pos] == '#' && text.compare(pos, 7, "#SBATCH") != 0) {
      const std::size_t end = text.find('\n', pos);
      const std::string line = text.substr(pos, end - pos);
      usage += line.substr(line.rfind("# ", 0) == 0 ? 2 : 1) + "\n";
      pos = end + 1;
    }
    const auto r = sh("bash " + k_scripts + s + " --help");
    EXPECT_EQ(r.exit_code, 0) << s << "\n" << r.err;
    EXPECT_EQ(r.out, usage) << s;
    EXPECT_GT(usage.size(), 200u) << s;
    EXPECT_EQ(r.out.find("set -euo"), std::string::npos) << s;
    EXPECT_EQ(r.err, "") << s;
  }
  for (const char* cmd :
       {"slurm/local-slurm.sh frob", "slurm/local-slurm.sh", "slurm/cudabench-fleet.sbatch --suite x"}) {
    const auto r = sh("bash " + k_scripts + cmd);
    EXPECT_EQ(r.exit_code, 2) << cmd << "\n" << r.err;
    EXPECT_EQ(r.out, "") << cmd;
  }
}

TEST(Scripts, MissingValuesAndUnknownOptionsAreExitTwoWithUsage) {
  struct bad {
    std::string cmd, words, usage_of;
  };
  for (const auto& b :
       {bad{"bootstrap.sh --build-dir", "bootstrap: --build-dir needs a value", "bootstrap.sh"},
        bad{"bootstrap.sh --arch --no-install", "bootstrap: --arch needs a value", "bootstrap.sh"},
        bad{"bootstrap.sh --cuda-root", "bootstrap: --cuda-root needs a value", "bootstrap.sh"},
        bad{"bootstrap.sh --frob", "bootstrap: unknown argument '--frob'", "bootstrap.sh"},
        bad{"gpu-tests.sh --frob", "gpu-tests: unknown option '--frob'", "gpu-tests.sh"},
        bad{"toolkit-from-wheels.sh 12.4 /tmp/x --wheel-dir", "toolkit-from-wheels: --wheel-dir needs a value",
            "toolkit-from-wheels.sh"},
        bad{"toolkit-from-wheels.sh 12.4 /tmp/x --src", "toolkit-from-wheels: --src needs a value",
            "toolkit-from-wheels.sh"},
        bad{"toolkit-from-wheels.sh", "toolkit-from-wheels: VERSION and DEST are required", "toolkit-from-wheels.sh"},
        bad{"toolkit-from-wheels.sh 12.4 /tmp/x --frob", "toolkit-from-wheels: unknown option '--frob'",
            "toolkit-from-wheels.sh"},
        bad{"llm-profile.sh --bin", "llm-profile: --bin needs a value", "llm-profile.sh"},
        bad{"llm-profile.sh --out --bin x", "llm-profile: --out needs a value", "llm-profile.sh"},
        bad{"llm-profile.sh --frob", "llm-profile: unknown argument '--frob'", "llm-profile.sh"},
        bad{"llm-sweep.sh", "llm-sweep: no SETTING given", "llm-sweep.sh"},
        bad{"llm-sweep.sh tuned --bin", "llm-sweep: --bin needs a value", "llm-sweep.sh"},
        bad{"llm-sweep.sh --frob", "llm-sweep: unknown option '--frob'", "llm-sweep.sh"},
        bad{"llm-sweep.sh 'a b'", "llm-sweep: bad setting name in 'a b'", "llm-sweep.sh"},
        bad{"llm-sweep.sh x:PATH=/", "llm-sweep: 'PATH=/' in 'x:PATH=/' is not CUDABENCH_LLM_*=VALUE", "llm-sweep.sh"},
        bad{"llm-sweep.sh --bin /nonexistent tuned", "llm-sweep: /nonexistent is not an executable", "llm-sweep.sh"}}) {
    const auto r = sh(k_scripts + b.cmd);
    EXPECT_EQ(r.exit_code, 2) << b.cmd << "\n" << r.err;
    EXPECT_EQ(r.err.rfind(b.words, 0), 0u) << b.cmd << "\n" << r.err;
    EXPECT_NE(r.err.find(usage_of(b.usage_of)), std::string::npos) << b.cmd << "\n" << r.err;
  }
  const auto stage = sh(k_scripts + "gpu-tests.sh unit nope");
  EXPECT_EQ(stage.exit_code, 2);
  EXPECT_NE(stage.err.find("gpu-tests: unknown stage 'nope'"), std::string::npos) << stage.err;
  // Every stage is checked before any runs: `sanitize` is one (only 'nope' is named), and the list
  // the error prints is the whole one.
  const auto sanitize = sh(k_scripts + "gpu-tests.sh sanitize nope");
  EXPECT_EQ(sanitize.exit_code, 2);
  EXPECT_EQ(sanitize.err,
            "gpu-tests: unknown stage 'nope' (stages: build unit gpu oracle torchmatch backward pageable quick full aa "
            "sens cudnn memlimit "
            "sanitize baseline cuda12 profile llmtorch boundaries llmab)\n");
}

TEST(Scripts, RelativePathsAreTheCallers) {
  // --cuda-root relative to where bootstrap was started, not to the checkout it changes into; it
  // stops (exit 3) at the missing nvcc, before configuring anything.
  const auto r = sh(k_scripts + "bootstrap.sh --no-install --cuda-root no-such-toolkit", "/tmp");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("bootstrap: no nvcc under /tmp/no-such-toolkit"), std::string::npos) << r.err;
}

// scripts/ncu_kernel_table.py on a hand-made ncu CSV (the raw page's header, its units row and
// three kernels): the phases split after the argmax kernel, and the sums, rates and the GEMV's
// template arguments come out as documented.
TEST(Scripts, NcuKernelTableSplitsPhasesAndSums) {
  const std::string csv = cudabench::test::temp_path("ncu.csv");
  cudabench::test::write_text(
      csv,
      "==PROF== Connected to process 1\n"
      "\"ID\",\"Kernel Name\",\"dram__bytes_read.sum\",\"dram__bytes_write.sum\",\"gpu__time_duration.sum\"\n"
      "\"\",\"\",\"byte\",\"byte\",\"ns\"\n"
      "\"1\",\"void cudabench::<unnamed>::gemv_kernel<__half, uint4, 1, 3, 4, 8>(cudabench::gemv_args<T1>)\","
      "\"3,000,000\",\"1,000,000\",\"2,000\"\n"
      "\"2\",\"cudabench::<unnamed>::argmax_kernel(const float *, int)\",\"1000\",\"0\",\"1000\"\n"
      "\"3\",\"void cudabench::<unnamed>::gemv_kernel<__half, uint4, 0, 2, 8, 16>(cudabench::gemv_args<T1>)\","
      "\"8000000\",\"0\",\"4000\"\n");
  const auto r = sh("python3 " + k_scripts + "ncu_kernel_table.py '" + csv + "' --bandwidth-gbps 4000");
  std::remove(csv.c_str());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("prefill: 2 kernels, 3.0 us busy, 4.0 MB DRAM"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("decode: 1 kernels, 4.0 us busy, 8.0 MB DRAM"), std::string::npos) << r.out;
  // 4 MB in 2 us = 2000 GB/s = 50% of 4000; 8 MB in 4 us = 2000 GB/s.
  EXPECT_NE(r.out.find("gemv rmsnorm+swiglu 4w/u8"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("gemv add_residual 8w/u16"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("   2000    50"), std::string::npos) << r.out;
  const auto bad = sh("python3 " + k_scripts + "ncu_kernel_table.py /dev/null");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.err.find("no kernel rows"), std::string::npos) << bad.err;
}
