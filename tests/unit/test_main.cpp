// main() of the CPU tests: every test process gets its own temporary directory, removed when it
// ends, so a ctest run leaves nothing in /tmp. TMPDIR (and TEST_TMPDIR, which GoogleTest's
// TempDir() reads) point into it, so temp_path(), testing::TempDir(), the cudabench processes the
// tests start and the scripts they run (mktemp) all write there.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  const char* base = std::getenv("TMPDIR");
  std::string tmpl = std::string(base && *base ? base : "/tmp") + "/cudabench_unit.XXXXXX";
  const char* dir = ::mkdtemp(tmpl.data());
  if (dir == nullptr) {
    std::perror("cudabench unit tests: mkdtemp");
    return 1;
  }
  ::setenv("TMPDIR", dir, 1);
  ::setenv("TEST_TMPDIR", dir, 1);
  ::testing::InitGoogleTest(&argc, argv);
  const int rc = RUN_ALL_TESTS();
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);
  return rc;
}
