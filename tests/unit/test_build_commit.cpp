// cmake/git_commit.cmake, which every build runs to record the commit a binary is built from: the
// tree's HEAD, "-dirty" when a tracked file differs from it, $CUDABENCH_GIT_COMMIT or the
// configure-time fallback where there is no git tree, and no rewrite (so no recompile) when
// nothing changed. Run here on throwaway git trees.
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include <gtest/gtest.h>

#include "test_support.hpp"

namespace {

namespace fs = std::filesystem;

const std::string k_script = std::string(CUDABENCH_CONFIG_DIR) + "/../cmake/git_commit.cmake";

int shell(const std::string& cmd) {
  const int st = std::system(cmd.c_str());
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

class BuildCommit : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = cudabench::test::temp_path("build_commit");
    fs::remove_all(root_);
    fs::create_directories(root_ + "/tree");
    out_ = root_ + "/git_commit.cpp";
  }
  void TearDown() override { fs::remove_all(root_); }

  // Runs the script on root_/tree with `env` prepended; returns the commit string it wrote.
  std::string record(const std::string& env = "", const std::string& fallback = "") {
    // GIT_CEILING_DIRECTORIES: a temp dir inside someone's checkout must not find that repo.
    const std::string cmd = "cd '" + root_ + "' && GIT_CEILING_DIRECTORIES='" + root_ + "' " + env +
                            " cmake -DSOURCE_DIR='" + root_ + "/tree' -DOUT='" + out_ + "' -DFALLBACK='" + fallback +
                            "' -P '" + k_script + "'";
    EXPECT_EQ(shell(cmd), 0) << cmd;
    const std::string text = cudabench::test::read_text(out_);
    std::smatch m;
    static const std::regex literal(R"re(return "((?:[^"\\]|\\.)*)";)re");  // the C++ string, escapes kept
    EXPECT_TRUE(std::regex_search(text, m, literal)) << text;
    return m.size() > 1 ? m[1].str() : "";
  }
  void git(const std::string& args) {
    ASSERT_EQ(
        shell("cd '" + root_ + "/tree' && git -c user.email=t@example.com -c user.name=t " + args + " >/dev/null 2>&1"),
        0)
        << args;
  }

  std::string root_, out_;
};

TEST_F(BuildCommit, HeadThenDirtyThenUnchangedFileKept) {
  git("init -q");
  std::ofstream(root_ + "/tree/a.txt") << "one\n";
  git("add a.txt");
  git("commit -q -m first");
  const std::string clean = record();
  EXPECT_TRUE(std::regex_match(clean, std::regex("[0-9a-f]{12}"))) << clean;

  // The same tree again: the file is not rewritten (its time stays), so nothing recompiles.
  const auto old_time = fs::file_time_type::clock::now() - std::chrono::hours(1);
  fs::last_write_time(out_, old_time);
  EXPECT_EQ(record(), clean);
  EXPECT_EQ(fs::last_write_time(out_), old_time);

  std::ofstream(root_ + "/tree/a.txt") << "two\n";  // a tracked file edited: dirty
  EXPECT_EQ(record(), clean + "-dirty");
  std::ofstream(root_ + "/tree/untracked.txt") << "x\n";  // untracked files do not count
  git("checkout -q a.txt");
  EXPECT_EQ(record(), clean);

  git("commit -q --allow-empty -m second");  // a new commit: a new name
  const std::string next = record();
  EXPECT_TRUE(std::regex_match(next, std::regex("[0-9a-f]{12}"))) << next;
  EXPECT_NE(next, clean);
}

TEST_F(BuildCommit, WithoutGitTheEnvironmentThenTheFallbackThenUnknown) {
  EXPECT_EQ(record("CUDABENCH_GIT_COMMIT=0123456789ab", "fedcba987654"), "0123456789ab");
  EXPECT_EQ(record("CUDABENCH_GIT_COMMIT=", "fedcba987654"), "fedcba987654");
  EXPECT_EQ(record("CUDABENCH_GIT_COMMIT="), "unknown");
  EXPECT_EQ(record("CUDABENCH_GIT_COMMIT='a\"b'"), "a\\\"b");  // quoted into the C++ string
}

}  // namespace
