// Helpers shared by the compare/result/report unit tests: golden files and temp paths.
#pragma once
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace cudabench::test {

inline std::string data_path(const std::string& rel) { return std::string(CUDABENCH_TEST_DATA_DIR) + "/" + rel; }

inline std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline void write_text(const std::string& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
}

// Compares `actual` with tests/data/expected/<name>. With CUDABENCH_UPDATE_GOLDEN=1 in the
// environment it rewrites the file instead (review the diff before committing).
inline void expect_golden(const std::string& name, const std::string& actual) {
  const std::string path = data_path("expected/" + name);
  if (const char* u = std::getenv("CUDABENCH_UPDATE_GOLDEN"); u && std::string(u) == "1") {
    write_text(path, actual);
    return;
  }
  EXPECT_EQ(read_text(path), actual) << "golden file " << path << " differs (CUDABENCH_UPDATE_GOLDEN=1 rewrites it)";
}

inline std::string temp_path(const std::string& name) {
  const char* dir = std::getenv("TMPDIR");
  return std::string(dir && *dir ? dir : "/tmp") + "/cudabench_test_" + std::to_string(::getpid()) + "_" + name;
}

}  // namespace cudabench::test
