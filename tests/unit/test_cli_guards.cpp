// The CLI's checks before any work (issue 23): ab checks every build before round 1, --threshold
// must be a finite percentage, a dry run reads --tuning-from, a mistyped subcommand is named with
// the likely one, a run whose first round cannot start leaves no empty .rounds folder, fleet
// collect warns about one GPU under several names, an output named through a symlink updates
// the file it points to, and a bad CUDABENCH_TUNER_TIE_MARGIN stops run before anything runs.
#include <unistd.h>

#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "cli_runner.hpp"
#include "cudabench/result.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using cudabench::test::data_path;
using cudabench::test::read_text;
using cudabench::test::temp_path;
using cudabench::test::write_text;

namespace {

const std::string fake = CUDABENCH_FAKE_BINARY;

std::string fresh_dir(const std::string& name) {
  const std::string d = temp_path(name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

bool contains(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

}  // namespace

TEST(CliGuards, AbChecksEveryBuildBeforeRoundOne) {
  const std::string dir = fresh_dir("guard_ab"), out = dir + "/ab";
  for (const std::string& bad :
       {std::string("/nonexistent/cudabench"), std::string("env LD_LIBRARY_PATH=/x /nonexistent/cudabench"),
        std::string("no-such-program-on-path-23")}) {
    const auto r = run_cudabench("ab " + fake + " '" + bad + "' --suite quick --rounds 3 -o " + out);
    EXPECT_EQ(r.exit_code, 2) << bad << "\n" << r.output;
    EXPECT_TRUE(contains(r.output, "does not exist (nothing was run)")) << r.output;
    EXPECT_FALSE(contains(r.output, "=== ab run")) << "a round ran: " << r.output;
    EXPECT_FALSE(fs::exists(out)) << "ab made " << out << " for a run that never started";
  }
  const auto r = run_cudabench("ab " + fake + " " + dir + " --suite quick -o " + out);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "is a directory, not a cudabench executable")) << r.output;
}

TEST(CliGuards, AbWithNoResultFromAnyBuildSaysSo) {
  const std::string dir = fresh_dir("guard_ab_none");
  const auto r = run_cudabench("ab \"env FAKE_FAIL=1 " + fake + "\" \"env FAKE_FAIL=1 " + fake +
                               "\" --suite quick --rounds 1 --quiet -o " + dir + "/ab");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_TRUE(contains(r.output, "no build produced a result")) << r.output;
  EXPECT_FALSE(contains(r.output, "results of the others")) << r.output;
}

TEST(CliGuards, ThresholdMustBeAFinitePercentage) {
  const std::string a = data_path("results/cu121.json"), b = data_path("results/cu124.json");
  const std::string dir = fresh_dir("guard_threshold");
  for (const std::string t : {"inf", "1e400", "-1", "nan"}) {
    for (const std::string& cmd : {"compare " + a + " " + b, "report " + a + " " + b + " -o " + dir + "/r.html",
                                   "history show --db " + dir + "/none.sqlite",
                                   "ab " + fake + " " + fake + " --suite quick -o " + dir + "/ab"}) {
      const auto r = run_cudabench(cmd + " --threshold " + t);
      EXPECT_EQ(r.exit_code, 2) << cmd << " --threshold " << t << "\n" << r.output;
      EXPECT_TRUE(contains(r.output, "--threshold")) << r.output;
    }
  }
  EXPECT_TRUE(fs::is_empty(dir)) << "a refused command wrote something";
}

TEST(CliGuards, DryRunReadsTuningFrom) {
  auto r = run_cudabench("--suite quick --dry-run --tuning-from /nonexistent/tuning.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "/nonexistent/tuning.json: no such file (expected a result file)")) << r.output;
  r = run_cudabench("--suite quick --dry-run --tuning-from " + data_path("results/cu121.json"));
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

// The tuners' tie margin comes from the environment; a bad one stops run before anything runs (exit
// 2, the variable and value named), where it would otherwise fail every tuned workload's setup.
TEST(CliGuards, ABadTunerTieMarginStopsRunBeforeAnything) {
  for (const char* args :
       {"--suite quick --dry-run", "--suite quick --no-output -q", "--suite quick --rounds 2 --no-output"}) {
    const auto r = run_cudabench(args, "CUDABENCH_TUNER_TIE_MARGIN=3");
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_TRUE(contains(r.output, "CUDABENCH_TUNER_TIE_MARGIN=3: not a fraction from 0 to 0.5")) << r.output;
    EXPECT_FALSE(contains(r.output, "no NVIDIA")) << "checked before the GPU:\n" << r.output;
  }
  EXPECT_EQ(run_cudabench("--suite quick --dry-run", "CUDABENCH_TUNER_TIE_MARGIN=0.005").exit_code, 0);
}

// The same for the tuners' measurement length (tuner_measure.hpp).
TEST(CliGuards, ABadTunerMeasureTimeStopsRunBeforeAnything) {
  for (const char* args : {"--suite quick --dry-run", "--suite quick --no-output -q"}) {
    const auto r = run_cudabench(args, "CUDABENCH_TUNER_MEASURE_MS=0");
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_TRUE(contains(r.output, "CUDABENCH_TUNER_MEASURE_MS=0: not a time in ms from 0.1 to 1000")) << r.output;
    EXPECT_FALSE(contains(r.output, "no NVIDIA")) << "checked before the GPU:\n" << r.output;
  }
  EXPECT_EQ(run_cudabench("--suite quick --dry-run", "CUDABENCH_TUNER_MEASURE_MS=20").exit_code, 0);
}

TEST(CliGuards, MistypedSubcommandIsNamedWithTheLikelyOne) {
  auto r = run_cudabench("comapre a.json b.json");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.output, "cudabench: error: unknown command 'comapre' (did you mean compare?) (see cudabench --help)\n");
  r = run_cudabench("histroy show");
  EXPECT_TRUE(contains(r.output, "unknown command 'histroy' (did you mean history?)")) << r.output;
  r = run_cudabench("xyzzy");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.output, "cudabench: error: unknown command 'xyzzy' (see cudabench --help)\n");
  // Options still go to run, the default subcommand.
  EXPECT_EQ(run_cudabench("--suite quick --dry-run").exit_code, 0);
}

TEST(CliGuards, FleetHelpIsFleetsOwn) {
  const auto r = run_cudabench("fleet --help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.output.rfind("Fleet results: many GPUs, many hosts", 0), 0u) << r.output;
  EXPECT_TRUE(contains(r.output, "collect")) << r.output;
  EXPECT_FALSE(contains(r.output, "Options of run")) << r.output;
}

TEST(CliGuards, AFirstRoundThatCannotStartLeavesNoRoundsFolder) {
  const std::string dir = fresh_dir("guard_rounds"), out = dir + "/r.json";
  const auto r = run_cudabench("--suite quick --rounds 2 -o " + out + " --quiet",
                               "CUDABENCH_ROUND_COMMAND=" + fake + " FAKE_FAIL=1");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_FALSE(fs::exists(out + ".rounds")) << r.output;
  EXPECT_FALSE(fs::exists(out));
}

TEST(CliGuards, FleetCollectWarnsAboutOneGpuUnderSeveralNames) {
  const std::string dir = fresh_dir("guard_uuid");
  for (const char* name : {"/n1-gpu-0.json", "/n2-gpu-0.json", "/n3-gpu-0.json"})
    write_text(dir + name, read_text(data_path("results/cu121.json")));  // one UUID, GPU-00000000
  const auto r = run_cudabench("fleet collect " + dir);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "fleet collect: warning: n1 GPU 0 and n2 GPU 0 have the same GPU UUID GPU-00000000"))
      << r.output;
  EXPECT_TRUE(contains(r.output, "n1 GPU 0 and n3 GPU 0 have the same GPU UUID")) << r.output;
}

TEST(CliGuards, AnOutputNamedThroughASymlinkUpdatesItsTarget) {
  const std::string dir = fresh_dir("guard_symlink"), target = dir + "/report.md", link = dir + "/latest.md";
  write_text(target, "old\n");
  ASSERT_EQ(::symlink(target.c_str(), link.c_str()), 0);
  const auto r = run_cudabench("compare " + data_path("results/cu121.json") + " " + data_path("results/cu124.json") +
                               " --format markdown -o " + link);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::is_symlink(link));
  EXPECT_TRUE(contains(read_text(target), "| workload |")) << read_text(target);
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 2) << "a temporary file was left";
}
