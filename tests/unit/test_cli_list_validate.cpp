// `cudabench list` and `cudabench validate` through the real binary: exit codes (0 valid, 2
// invalid) and messages. These need no GPU. Cases that need the registry's `matmul` and
// `memory_bandwidth` kinds skip, saying so, when the binary does not register them.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

struct run_result {
  int exit_code = -1;
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Runs `cudabench <args>` (args are passed to the shell as written) and captures its output.
run_result cudabench(const std::string& args) {
  // Per-process names: ctest -j runs these tests as parallel processes sharing TempDir().
  const std::string dir = testing::TempDir() + "/cudabench_cli_" + std::to_string(::getpid());
  const std::string out = dir + "_out.txt", err = dir + "_err.txt";
  const std::string cmd = "'" + std::string(CUDABENCH_BINARY) + "' " + args + " >'" + out + "' 2>'" + err + "'";
  const int status = std::system(cmd.c_str());
  run_result r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

std::string suite_file(const std::string& name) { return std::string(CUDABENCH_TEST_DATA_DIR) + "/suites/" + name; }

// Whether the binary registers the kinds the golden suites use.
bool has_real_kinds() {
  const auto r = cudabench("list --kinds --format json");
  if (r.exit_code != 0) return false;
  bool matmul = false, memory = false;
  const auto listing = nlohmann::json::parse(r.out);
  for (const auto& k : listing.at("kinds")) {
    matmul = matmul || k.at("kind") == "matmul";
    memory = memory || k.at("kind") == "memory_bandwidth";
  }
  return matmul && memory;
}

#define REQUIRE_REAL_KINDS() \
  if (!has_real_kinds()) GTEST_SKIP() << "the cudabench binary does not register matmul and memory_bandwidth yet"

}  // namespace

TEST(CliValidate, UnknownKindExits2AndNamesFileAndPath) {
  const auto path = suite_file("bad_unknown_kind.json");
  const auto r = cudabench("validate '" + path + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("cudabench: error: " + path + R"(: workloads[0].kind: unknown kind "matmull" (known: )"),
            std::string::npos)
      << r.err;
}

TEST(CliValidate, MalformedJsonExits2WithLineAndColumn) {
  const auto path = suite_file("bad_malformed.json");
  const auto r = cudabench("validate '" + path + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "cudabench: error: " + path +
                       ": invalid JSON: parse error at line 5, column 5: syntax error while parsing array - "
                       "unexpected '{'; expected ']'\n");
}

TEST(CliValidate, DuplicateKeyExits2) {
  const auto path = suite_file("bad_duplicate_key.json");
  const auto r = cudabench("validate '" + path + "'");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "cudabench: error: " + path + ": workloads[0]: duplicate key \"m\"\n");
}

TEST(CliValidate, MissingFileExits2) {
  const auto r = cudabench("validate no_such_suite");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(R"(cudabench: error: suite "no_such_suite" not found (looked for no_such_suite.json in: )"),
            std::string::npos)
      << r.err;
}

TEST(CliValidate, ChecksEveryFileAndReportsEachFailure) {
  const auto a = suite_file("bad_malformed.json"), b = suite_file("bad_unknown_kind.json");
  const auto r = cudabench("validate '" + a + "' '" + b + "' /no/such/file.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(a + ": invalid JSON"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(b + ": workloads[0].kind: unknown kind"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(R"(suite "/no/such/file.json" not found (no such file))"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cudabench: 3 of 3 suite files are invalid"), std::string::npos) << r.err;
}

TEST(CliValidate, NoFileIsAUsageError) { EXPECT_EQ(cudabench("validate").exit_code, 2); }

TEST(CliList, KindsListingWorksWithoutASuite) {
  const auto table = cudabench("list");
  EXPECT_EQ(table.exit_code, 0) << table.err;
  EXPECT_FALSE(table.out.empty());
  const auto json = cudabench("list --kinds --format json");
  ASSERT_EQ(json.exit_code, 0) << json.err;
  EXPECT_TRUE(nlohmann::json::parse(json.out).at("kinds").is_array());
}

TEST(CliList, BadOptionsExit2) {
  EXPECT_EQ(cudabench("list --format xml").exit_code, 2);
  const auto r = cudabench("list --suite no_such_suite");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(R"(suite "no_such_suite" not found)"), std::string::npos) << r.err;
  EXPECT_EQ(cudabench("list --suite '" + suite_file("bad_unknown_kind.json") + "'").exit_code, 2);
}

// ---- with the registry's kinds (skip until they are registered) ------------------------------

TEST(CliValidate, ValidSuitePrintsOkAndCount) {
  REQUIRE_REAL_KINDS();
  const auto path = suite_file("valid_sweep.json");
  const auto r = cudabench("validate '" + path + "'");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, path + ": ok (9 workloads)\n");
}

TEST(CliValidate, BadSuitesWithRealKinds) {
  REQUIRE_REAL_KINDS();
  const struct {
    const char* file;
    const char* message;
  } cases[] = {
      {"bad_unknown_key.json", R"(workloads[0]: unknown key "dtpye" for kind matmul (expected dtype, m, n, k, batch))"},
      {"bad_wrong_type.json", R"(workloads[0].m: expected an integer, got string "big")"},
      {"bad_dtype.json", R"(workloads[3].dtype: unknown dtype "fp17" (expected fp32, tf32, fp16, bf16, fp8))"},
      {"bad_empty_sweep.json", "workloads[0].dtype: empty sweep (an array needs at least one value)"},
      {"bad_negative.json", "workloads[0].m: -5 is below the minimum 1"},
      {"bad_duplicate_id.json", R"(workloads[2]: duplicate id "matmul/dtype=bf16/m=64/n=64/k=64)"},
  };
  for (const auto& c : cases) {
    const auto path = suite_file(c.file);
    const auto r = cudabench("validate '" + path + "'");
    EXPECT_EQ(r.exit_code, 2) << c.file;
    EXPECT_NE(r.err.find(path + ": " + c.message), std::string::npos) << r.err;
  }
}

TEST(CliList, JsonIsTheContractForScripts) {
  REQUIRE_REAL_KINDS();
  const auto path = suite_file("valid_sweep.json");
  const auto r = cudabench("list --suite '" + path + "' --format json --filter 'matmul/*fp16*,*op=d2d*'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("suite").at("name"), "valid_sweep");
  EXPECT_EQ(j.at("suite").at("source"), path);
  EXPECT_EQ(j.at("suite").at("sha256"), "7395a6b5346c96882fd776c0f5ef0eee35ea6ded2f812bd1c72e9c6319123fe3");
  EXPECT_EQ(j.at("settings"), nlohmann::json::parse(R"({"repetitions": 3, "warmup": 1, "min_time_ms": 12.5})"));
  const auto& w = j.at("workloads");
  ASSERT_EQ(w.size(), 4u);
  EXPECT_EQ(w[0].at("kind"), "matmul");
  EXPECT_EQ(w[0].at("id").get<std::string>().rfind("matmul/dtype=fp16/m=1024/n=512/k=256", 0), 0u);
  EXPECT_EQ(w[0].at("params").at("m"), 1024);
  EXPECT_EQ(w[2].at("id"), "memory_bandwidth/op=d2d/bytes=1073741824");
  EXPECT_EQ(w[2].at("params").at("bytes"), 1073741824);
}

TEST(CliList, TableHasIndexIdAndCount) {
  REQUIRE_REAL_KINDS();
  const auto r = cudabench("list --suite '" + suite_file("valid_sweep.json") + "' --filter '*op=memset*'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("  1  memory_bandwidth/op=memset/bytes="), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 of 9 workloads (filter \"*op=memset*\")"), std::string::npos) << r.out;
  const auto none = cudabench("list --suite '" + suite_file("valid_sweep.json") + "' --filter 'nothing*'");
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find(R"(--filter "nothing*" matches none of the 9 workloads of suite valid_sweep)"),
            std::string::npos)
      << none.err;
}
