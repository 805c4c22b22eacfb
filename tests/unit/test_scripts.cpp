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
  for (const char* s : {"bootstrap.sh", "gpu-tests.sh", "toolkit-from-wheels.sh"})
    for (const char* flag : {"--help", "-h"}) {
      const auto r = sh(k_scripts + s + " " + flag);
      EXPECT_EQ(r.exit_code, 0) << s;
      EXPECT_EQ(r.out, usage_of(s)) << s;
      EXPECT_EQ(r.err, "") << s;
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
            "toolkit-from-wheels.sh"}}) {
    const auto r = sh(k_scripts + b.cmd);
    EXPECT_EQ(r.exit_code, 2) << b.cmd << "\n" << r.err;
    EXPECT_EQ(r.err.rfind(b.words, 0), 0u) << b.cmd << "\n" << r.err;
    EXPECT_NE(r.err.find(usage_of(b.usage_of)), std::string::npos) << b.cmd << "\n" << r.err;
  }
  const auto stage = sh(k_scripts + "gpu-tests.sh unit nope");
  EXPECT_EQ(stage.exit_code, 2);
  EXPECT_NE(stage.err.find("gpu-tests: unknown stage 'nope'"), std::string::npos) << stage.err;
}

TEST(Scripts, RelativePathsAreTheCallers) {
  // --cuda-root relative to where bootstrap was started, not to the checkout it changes into; it
  // stops (exit 3) at the missing nvcc, before configuring anything.
  const auto r = sh(k_scripts + "bootstrap.sh --no-install --cuda-root no-such-toolkit", "/tmp");
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("bootstrap: no nvcc under /tmp/no-such-toolkit"), std::string::npos) << r.err;
}
