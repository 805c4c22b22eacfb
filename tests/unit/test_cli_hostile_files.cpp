// The CLI given things that are not suite or result files: directories, devices, FIFOs, empty
// files, symlink loops, files past the documented size. Each must exit 2 at once, with a
// one-line `cudabench: error:` that names the path and says what it is -- never hang, never
// say "not found" about something that exists, never leak nlohmann's exception codes.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "test_support.hpp"

using cudabench::test::data_path;
using cudabench::test::temp_path;
using cudabench::test::write_text;

namespace {

// `timeout` turns a hang into exit 124 instead of a stuck test run.
cli_result cb(const std::string& args) { return run_cudabench(args, ""); }
cli_result cb_bounded(const std::string& args) {
  cli_result r;
  const std::string cmd = "timeout 20 " + std::string(CUDABENCH_BINARY) + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.output.append(buf, n);
  const int st = pclose(p);
  r.exit_code = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

void expect_exit2(const cli_result& r, const std::string& words, const std::string& what) {
  EXPECT_EQ(r.exit_code, 2) << what << "\n" << r.output;
  EXPECT_NE(r.output.find(words), std::string::npos) << what << "\n" << r.output;
  EXPECT_EQ(r.output.rfind("cudabench: error: ", 0), 0u) << what << "\n" << r.output;
  EXPECT_EQ(r.output.find("json.exception"), std::string::npos) << what << "\n" << r.output;
  EXPECT_EQ(r.output.find("not found"), std::string::npos) << what << "\n" << r.output;
}

struct fixture_files {
  std::string fifo = temp_path("cli.fifo"), loop_a = temp_path("cli_loop_a.json"),
              loop_b = temp_path("cli_loop_b.json"), empty = temp_path("cli_empty.json"),
              big = temp_path("cli_big.json"), dir = temp_path("cli_dir.json");
  fixture_files() {
    for (const auto& p : {fifo, loop_a, loop_b, empty, big}) std::remove(p.c_str());
    ::rmdir(dir.c_str());
    // A fixture that could not be made would make its rows test something else: fail loudly.
    if (::mkfifo(fifo.c_str(), 0600) != 0 || ::symlink(loop_b.c_str(), loop_a.c_str()) != 0 ||
        ::symlink(loop_a.c_str(), loop_b.c_str()) != 0)
      ADD_FAILURE() << "could not create the FIFO and symlink-loop fixtures in " << fifo;
    write_text(empty, "");
    write_text(big, "");
    ::mkdir(dir.c_str(), 0700);
  }
  ~fixture_files() {
    for (const auto& p : {fifo, loop_a, loop_b, empty, big}) std::remove(p.c_str());
    ::rmdir(dir.c_str());
  }
};

}  // namespace

TEST(CliHostileFiles, CompareRefusesNonFilesAtOnce) {
  fixture_files f;
  const std::string good = data_path("results/cu121.json");
  ASSERT_EQ(::truncate(f.big.c_str(), (5ll << 30)), 0);  // sparse, past the 4 GiB limit
  struct bad {
    std::string path, words;
  };
  for (const auto& b :
       {bad{f.fifo, "is a FIFO (named pipe), not a regular file (expected a result or fleet file)"},
        bad{"/dev/zero", "/dev/zero: is a character device, not a regular file"},
        bad{"/dev/null", "/dev/null: is a character device"}, bad{"/tmp", "/tmp: is a directory, not a regular file"},
        bad{f.dir, "is a directory, not a regular file"}, bad{f.empty, "empty file (expected a result or fleet file)"},
        bad{f.loop_a, "too many levels of symbolic links"},
        bad{f.big, "5.0 GiB is larger than a result or fleet file may be (4.0 GiB"}}) {
    expect_exit2(cb_bounded("compare '" + good + "' '" + b.path + "'"), b.words, b.path);
    expect_exit2(cb_bounded("compare '" + b.path + "' '" + good + "'"), b.words, b.path + " as baseline");
  }
}

TEST(CliHostileFiles, SuitePathsThatExistAreNotNotFound) {
  fixture_files f;
  ASSERT_EQ(::truncate(f.big.c_str(), (17ll << 20)), 0);  // past the 16 MiB suite limit
  struct bad {
    std::string path, words;
  };
  for (const auto& b :
       {bad{f.fifo, "is a FIFO (named pipe), not a regular file (expected a suite file)"},
        bad{"/dev/null", "/dev/null: is a character device, not a regular file (expected a suite file)"},
        bad{"/tmp", "/tmp: is a directory, not a regular file (expected a suite file)"}, bad{f.dir, "is a directory"},
        bad{f.empty, "empty file (expected a suite file)"},
        bad{f.loop_a, "too many levels of symbolic links (a symlink loop?)"},
        bad{f.big, "17.0 MiB is larger than a suite file may be (16.0 MiB"}}) {
    expect_exit2(cb_bounded("validate '" + b.path + "'"), b.words, "validate " + b.path);
    expect_exit2(cb_bounded("list --suite '" + b.path + "'"), b.words, "list " + b.path);
    expect_exit2(cb_bounded("--suite '" + b.path + "' --dry-run"), b.words, "run " + b.path);
  }
}

TEST(CliHostileFiles, MissingSuiteIsStillNotFound) {
  const auto r = cb("validate /nonexistent/dir/suite.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("suite \"/nonexistent/dir/suite.json\" not found (no such file)"), std::string::npos)
      << r.output;
}

TEST(CliHostileFiles, NumbersBeyondDoubleAreBadInputWithTheirPath) {
  const std::string suite = temp_path("e400_suite.json"), result = temp_path("e400_result.json");
  for (const char* param : {"\"m\": 1e400", "\"m\": [4096, 1e400]"}) {
    write_text(suite, std::string(R"({"name": "e", "workloads": [{"kind": "matmul", "dtype": "fp16", )") + param +
                          R"(, "n": 64, "k": 64}]})");
    for (const char* cmd : {"validate ", "list --suite ", "--dry-run --suite "}) {
      const auto r = cb(cmd + suite);
      expect_exit2(r, "number 1e400 is out of range", std::string(cmd) + param);
      EXPECT_NE(r.output.find(suite + ": workloads[0].m"), std::string::npos) << r.output;
    }
  }
  write_text(
      suite,
      R"({"name": "e", "defaults": {"repetitions": 1e400}, "workloads": [{"kind": "matmul", "dtype": "fp16", "m": 1, "n": 1, "k": 1}]})");
  expect_exit2(cb("validate " + suite), suite + ": defaults.repetitions: number 1e400 is out of range", "repetitions");

  std::string text = cudabench::test::read_text(data_path("results/cu124.json"));
  const auto pos = text.find("\"samples\": [");
  ASSERT_NE(pos, std::string::npos);
  text.insert(pos + 12, "1e400, ");
  write_text(result, text);
  expect_exit2(cb("compare " + data_path("results/cu121.json") + " " + result),
               result + ": workloads[0].metrics.time_ms.samples[0]: number 1e400 is out of range", "compare");
  std::remove(suite.c_str());
  std::remove(result.c_str());
}

TEST(CliHostileFiles, CompareNeverWritesOverAnInput) {
  const std::string a = temp_path("cmp_a.json"), b = temp_path("cmp_b.json"), link = temp_path("cmp_a_link.json"),
                    hard = temp_path("cmp_a_hard.json");
  write_text(a, cudabench::test::read_text(data_path("results/cu121.json")));
  write_text(b, cudabench::test::read_text(data_path("results/cu124.json")));
  for (const auto& p : {link, hard}) std::remove(p.c_str());
  ASSERT_EQ(::symlink(a.c_str(), link.c_str()), 0);
  ASSERT_EQ(::link(a.c_str(), hard.c_str()), 0);
  const std::string before = cudabench::test::read_text(a);
  // The same file through "DIR/../DIR/NAME".
  const std::string dir = a.substr(0, a.rfind('/')),
                    dotdot = dir + "/../" + dir.substr(dir.rfind('/') + 1) + a.substr(a.rfind('/'));
  for (const auto& out : {a, b, link, hard, dotdot}) {
    const auto r = cb("compare " + a + " " + b + " -o " + out);
    expect_exit2(r, "is the input file", out);
    EXPECT_NE(r.output.find("refusing to overwrite it"), std::string::npos) << r.output;
  }
  EXPECT_EQ(cudabench::test::read_text(a), before);
  for (const auto& p : {a, b, link, hard}) std::remove(p.c_str());
}

TEST(CliHostileFiles, ComparingAFileWithItselfSaysSo) {
  const std::string a = data_path("results/cu121.json");
  const auto r = cb("compare " + a + " " + a);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("cudabench: note: " + a + " is the same file as " + a +
                          ": those columns compare a run with itself"),
            std::string::npos)
      << r.output;
  const auto other = cb("compare " + a + " " + data_path("results/cu124.json"));
  EXPECT_EQ(other.output.find("cudabench: note:"), std::string::npos);
}

TEST(CliHostileFiles, ImpossibleSamplesAreExitTwoNamingFileWorkloadAndMetric) {
  auto j = nlohmann::json::parse(cudabench::test::read_text(data_path("results/cu124.json")));
  auto& m = j["workloads"][0]["metrics"]["time_ms"];
  const std::string id = j["workloads"][0]["id"];
  const std::string cand = temp_path("impossible.json");
  // The reader refuses them (every command's), naming the JSON path, the workload and the sample.
  for (const auto& [samples, index, why] : std::vector<std::tuple<nlohmann::json, int, std::string>>{
           {{-0.21, -0.2, -0.22, -0.21, -0.2}, 0, "-0.21 ms is not a possible time (times are > 0)"},
           {{0, 0, 0, 0, 0}, 0, "0 ms is not a possible time (times are > 0)"},
           {{0.2, 1e308, 0.2, 0.2, 0.2}, 1, "1e+308 ms is beyond any measurement"}}) {
    m["samples"] = samples;
    write_text(cand, j.dump(2));
    const auto r = cb("compare " + data_path("results/cu121.json") + " " + cand);
    const std::string i = std::to_string(index);
    expect_exit2(r, cand + ": workloads[0].metrics.time_ms.samples[" + i + "]: " + why, why);
    EXPECT_NE(r.output.find("(workload " + id + ", metric time_ms, sample " + i + ")"), std::string::npos) << r.output;
  }
  std::remove(cand.c_str());
}
