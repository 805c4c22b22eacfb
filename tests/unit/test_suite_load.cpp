// load_suite(): golden suite files in tests/data/suites, the NAME -> NAME.json search, and the
// message for a suite that is not found.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudabench/errors.hpp"
#include "cudabench/suite.hpp"
#include "test_suite_catalog.hpp"

using cudabench::input_error;
using cudabench::load_suite;

namespace {

const std::string k_dir = std::string(CUDABENCH_TEST_DATA_DIR) + "/suites";

std::string error_loading(const std::string& name_or_path, const std::vector<std::string>& dirs = {}) {
  try {
    load_suite(name_or_path, cudabench::test::test_catalog(), dirs);
  } catch (const input_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(SuiteLoad, GoldenValidSuite) {
  const auto path = k_dir + "/valid_sweep.json";
  const auto s = load_suite(path, cudabench::test::test_catalog(), {});
  EXPECT_EQ(s.name, "valid_sweep");
  EXPECT_EQ(s.description, "Golden suite: two sweeps, defaults, byte sizes");
  EXPECT_EQ(s.source, path);
  // `sha256sum tests/data/suites/valid_sweep.json`
  EXPECT_EQ(s.sha256, "7395a6b5346c96882fd776c0f5ef0eee35ea6ded2f812bd1c72e9c6319123fe3");
  EXPECT_EQ(s.defaults.repetitions, 3);
  EXPECT_EQ(s.defaults.warmup, 1);
  EXPECT_DOUBLE_EQ(s.defaults.min_time_ms, 12.5);
  const std::vector<std::string> ids = {
      "matmul/dtype=fp32/m=1024/n=512/k=256",
      "matmul/dtype=fp32/m=2048/n=512/k=256",
      "matmul/dtype=fp16/m=1024/n=512/k=256",
      "matmul/dtype=fp16/m=2048/n=512/k=256",
      "memory_bandwidth/op=d2d/bytes=1073741824",
      "memory_bandwidth/op=d2d/bytes=4096",
      "memory_bandwidth/op=h2d_pinned/bytes=1073741824",
      "memory_bandwidth/op=h2d_pinned/bytes=4096",
      "memory_bandwidth/op=memset/bytes=268435456",
  };
  ASSERT_EQ(s.workloads.size(), ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) EXPECT_EQ(s.workloads[i].id, ids[i]) << "index " << i;
  EXPECT_EQ(s.workloads[4].kind, "memory_bandwidth");
  EXPECT_EQ(s.workloads[4].get_string("op"), "d2d");
  EXPECT_EQ(s.workloads[4].get_int("bytes"), 1073741824);
}

TEST(SuiteLoad, GoldenBadSuites) {
  struct bad_case {
    const char* file;
    const char* message;  // after "<path>: "
  };
  const bad_case cases[] = {
      {"bad_malformed.json",
       "invalid JSON: parse error at line 5, column 5: syntax error while parsing array - unexpected '{'; "
       "expected ']'"},
      {"bad_unknown_kind.json",
       R"(workloads[0].kind: unknown kind "matmull" (known: matmul, memory_bandwidth, llm_decode, resnet50, transformer_memory, train_step, toy, ruled))"},
      {"bad_unknown_key.json", R"(workloads[0]: unknown key "dtpye" for kind matmul (expected dtype, m, n, k, batch))"},
      {"bad_wrong_type.json", R"(workloads[0].m: expected an integer, got string "big")"},
      {"bad_dtype.json", R"(workloads[3].dtype: unknown dtype "fp17" (expected fp32, tf32, fp16, bf16, fp8))"},
      {"bad_empty_sweep.json", "workloads[0].dtype: empty sweep (an array needs at least one value)"},
      {"bad_negative.json", "workloads[0].m: -5 is below the minimum 1"},
      {"bad_duplicate_id.json",
       R"(workloads[2]: duplicate id "matmul/dtype=bf16/m=64/n=64/k=64" (workloads[0] already expands to it))"},
      {"bad_duplicate_key.json", R"(workloads[0]: duplicate key "m")"},
  };
  for (const auto& c : cases) {
    const auto path = k_dir + "/" + c.file;
    EXPECT_EQ(error_loading(path), path + ": " + c.message);
  }
}

TEST(SuiteLoad, NameIsLookedUpInSearchDirsInOrder) {
  const std::string missing_dir = k_dir + "/no_such_dir";
  const auto s = load_suite("valid_sweep", cudabench::test::test_catalog(), {missing_dir, k_dir});
  EXPECT_EQ(s.source, k_dir + "/valid_sweep.json");
  EXPECT_EQ(s.workloads.size(), 9u);
  // A trailing slash and an explicit .json extension work too.
  EXPECT_EQ(load_suite("valid_sweep.json", cudabench::test::test_catalog(), {k_dir + "/"}).source,
            k_dir + "/valid_sweep.json");
}

TEST(SuiteLoad, MissingSuiteNamesTheDirsSearched) {
  EXPECT_EQ(error_loading("foo", {"dir1", "dir2"}), R"(suite "foo" not found (looked for foo.json in: dir1, dir2))");
  EXPECT_EQ(error_loading("foo.json", {"dir1"}), R"(suite "foo.json" not found (looked for foo.json in: ., dir1))");
  EXPECT_EQ(error_loading(k_dir + "/nope.json", {"dir1"}),
            "suite \"" + k_dir + "/nope.json\" not found (no such file)");
  EXPECT_EQ(error_loading(""), "no suite given (expected a suite name or a path to a .json file)");
}

TEST(SuiteLoad, DirectoryIsNotASuite) {
  // `suites` exists as a directory next to the golden files, not as suites.json.
  EXPECT_EQ(error_loading("suites", {CUDABENCH_TEST_DATA_DIR}),
            std::string(R"(suite "suites" not found (looked for suites.json in: )") + CUDABENCH_TEST_DATA_DIR + ")");
}
