// `run --rounds` and `ab` end to end without a GPU: the rounds run tests' fake cudabench
// (tests/fake/fake_cudabench.cpp) in fresh processes, and the real cudabench schedules, merges,
// marks the interleaved session and compares.
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "cudabench/result.hpp"
#include "test_support.hpp"

using namespace cudabench;

namespace {

std::string fresh_dir(const std::string& name) {
  const std::string d = test::temp_path(name);
  std::filesystem::remove_all(d);
  return d;
}

std::vector<std::string> lines_of(const std::string& path) {
  std::vector<std::string> out;
  std::istringstream in(test::read_text(path));
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

const std::string fake = CUDABENCH_FAKE_BINARY;

}  // namespace

TEST(CliRounds, EveryRoundIsAFreshProcessMergedIntoOneFile) {
  const std::string dir = fresh_dir("rounds_run"), out = dir + "/r.json", log = dir + "/log";
  std::filesystem::create_directories(dir);
  const auto r = run_cudabench("--suite quick --rounds 3 -o " + out + " --quiet --format csv",
                               "CUDABENCH_ROUND_COMMAND=" + fake + " FAKE_LOG=" + log);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(lines_of(log).size(), 3u);  // three processes
  const result_file f = read_result_file(out);
  EXPECT_EQ(f.rounds, 3);
  ASSERT_EQ(f.round_log.size(), 3u);
  ASSERT_EQ(f.workloads.size(), 10u);
  const metric* m = f.workloads[0].find_metric("step_ms");
  ASSERT_NE(m, nullptr);
  ASSERT_EQ(m->samples.size(), 15u);
  EXPECT_EQ(m->rounds, (std::vector<int>{0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2}));
  EXPECT_TRUE(std::filesystem::exists(out + ".rounds/round-2.json"));
  EXPECT_NE(r.output.find("fake/i=0"), std::string::npos) << r.output;  // the merged summary
}

TEST(CliRounds, NoGpuOnTheFirstRoundStopsWithExitThree) {
  const std::string dir = fresh_dir("rounds_fail"), out = dir + "/r.json";
  std::filesystem::create_directories(dir);
  const auto r = run_cudabench("--suite quick --rounds 4 -o " + out + " --quiet",
                               "CUDABENCH_ROUND_COMMAND=" + fake + " FAKE_FAIL=1");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("round 1 of 4 ended with exit code 3"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(out));
}

TEST(CliRounds, DryRunSaysHowManyRounds) {
  const auto r = run_cudabench("--suite quick --rounds 5 --dry-run");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("5 rounds in fresh processes"), std::string::npos) << r.output;
}

TEST(CliRounds, ATimeLimitEndsTheRoundsBeforeOneThatCannotFitAndKeepsWhatRan) {
  const std::string dir = fresh_dir("rounds_time_limit"), out = dir + "/r.json", log = dir + "/log";
  std::filesystem::create_directories(dir);
  // Each round sleeps 600 ms: after the first, the next is expected to end past 1 s, so it never
  // starts; the file holds round 1 and the run is a success (no --resume to continue it).
  auto r = run_cudabench("--suite quick --rounds 4 --time-limit 1 -o " + out + " --quiet --format csv",
                         "CUDABENCH_ROUND_COMMAND=" + fake + " FAKE_SLEEP_MS=600 FAKE_LOG=" + log);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("run: stopped at the time limit (1 s): 1 of 4 rounds done"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(out + " holds the finished rounds"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("fake/i=0,ok,step_ms"), std::string::npos) << r.output;  // the summary still prints
  EXPECT_EQ(lines_of(log).size(), 1u);
  EXPECT_EQ(read_result_file(out).rounds, 1);
  // A limit the rounds fit in changes nothing.
  std::remove(log.c_str());
  r = run_cudabench("--suite quick --rounds 3 --time-limit 1000 -o " + out + " --quiet --format csv",
                    "CUDABENCH_ROUND_COMMAND=" + fake + " FAKE_LOG=" + log);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("stopped at the time limit"), std::string::npos) << r.output;
  EXPECT_EQ(lines_of(log).size(), 3u);
  EXPECT_EQ(read_result_file(out).rounds, 3);
  // Bad limits are exit 2, naming the option; --devices runs schedule rounds per GPU and refuse it.
  r = run_cudabench("--suite quick --rounds 3 --time-limit 0 --dry-run");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--time-limit"), std::string::npos) << r.output;
  r = run_cudabench("--suite quick --rounds 3 --time-limit 60 --devices 0,1 --dry-run", "FAKE_DEVICE_COUNT=2");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--time-limit stops between the rounds of one GPU's run; it does not take --devices"),
            std::string::npos)
      << r.output;
}

TEST(CliAb, AnAaComparisonInterleavesAndFindsNothing) {
  const std::string dir = fresh_dir("ab_aa"), log = dir + ".log";
  std::remove(log.c_str());
  const auto r = run_cudabench("ab " + fake + " " + fake + " --suite quick --rounds 3 --labels old,new -o " + dir +
                                   " --quiet --format json",
                               "FAKE_LOG=" + log);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // A B, B A, A B
  std::vector<std::string> order;
  for (const auto& l : lines_of(log)) order.push_back(l.substr(0, l.find(' ')));
  EXPECT_EQ(order, (std::vector<std::string>{"old", "new", "new", "old", "old", "new"}));
  const result_file a = read_result_file(dir + "/A.json"), b = read_result_file(dir + "/B.json");
  EXPECT_EQ(a.rounds, 3);
  EXPECT_EQ(b.rounds, 3);
  ASSERT_TRUE(a.interleave.contains("session"));
  EXPECT_EQ(a.interleave["session"], b.interleave["session"]);
  EXPECT_EQ(a.interleave["schedule"], "ABBAAB");
  EXPECT_EQ(b.interleave["side"], "B");
  const auto j = nlohmann::json::parse(test::read_text(dir + "/compare.json"));
  EXPECT_EQ(j["files"][1]["same_session_as_baseline"], true);
  EXPECT_EQ(j["summary"][0]["improved"], 0);
  EXPECT_EQ(j["summary"][0]["regressed"], 0);
  EXPECT_NE(test::read_text(dir + "/compare.md").find("one interleaved session"), std::string::npos);
}

TEST(CliAb, PowerSetsWhatEachRowsMdeIsFoundWith) {
  // The same rounds judged at power 0.5 and at the default 0.8: the smaller power finds smaller
  // changes, so every tested row's mde shrinks; ab reports the power it used, as compare does.
  // (The fake binary's samples differ between runs, and a row's prior may be learned from its
  // rounds, so the mdes are compared on one ab's files, judged again by compare --power 0.5.)
  auto mdes = [](const nlohmann::json& j) {
    std::vector<double> out;
    for (const auto& row : j["rows"])
      if (row["changes"][0]["mde_pct"].is_number()) out.push_back(row["changes"][0]["mde_pct"].get<double>());
    return out;
  };
  const std::string d8 = fresh_dir("ab_power8"), d5 = fresh_dir("ab_power5");
  auto r = run_cudabench("ab " + fake + " " + fake + " --suite quick --rounds 3 -o " + d8 + " --quiet --format json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_cudabench("ab " + fake + " " + fake + " --suite quick --rounds 3 -o " + d5 +
                    " --quiet --format json --power 0.5");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j8 = nlohmann::json::parse(test::read_text(d8 + "/compare.json"));
  EXPECT_DOUBLE_EQ(j8["power"].get<double>(), 0.8);
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(test::read_text(d5 + "/compare.json"))["power"].get<double>(), 0.5);
  r = run_cudabench("compare " + d8 + "/A.json " + d8 + "/B.json --power 0.5 --format json -o " + d5 + "/again.json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j5 = nlohmann::json::parse(test::read_text(d5 + "/again.json"));
  EXPECT_DOUBLE_EQ(j5["power"].get<double>(), 0.5);
  const auto m8 = mdes(j8), m5 = mdes(j5);
  ASSERT_EQ(m8.size(), m5.size());
  ASSERT_FALSE(m8.empty());
  for (std::size_t i = 0; i < m8.size(); ++i) EXPECT_LT(m5[i], m8[i]) << i;
  r = run_cudabench("ab " + fake + " " + fake + " --suite quick --power 1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--power 1 must be between 0 and 1"), std::string::npos) << r.output;
}

TEST(CliAb, APlantedRegressionIsFoundAndFailsTheRun) {
  const std::string dir = fresh_dir("ab_shift");
  // Side B is the fake behind `env FAKE_SHIFT=10`: fake/i=0 is 10% slower there.
  const auto r = run_cudabench("ab " + fake + " \"env FAKE_SHIFT=10 " + fake + "\" --suite quick --rounds 3 -o " + dir +
                               " --quiet --format csv --fail-on-regression");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  const auto j = nlohmann::json::parse(test::read_text(dir + "/compare.json"));
  int regressed = 0;
  for (const auto& row : j["rows"]) {
    const std::string v = row["changes"][0]["verdict"];
    if (row["id"] == "fake/i=0") {
      EXPECT_EQ(v, "regressed");
      // 10% slower. The estimate's sd is ~0.44% (3 rounds a side, 0.5% round noise; 300 simulated
      // abs gave -11.0 to -8.8), so +-2.5 is ~6 sd: +-1.5 (3.4 sd) failed once in CI at -8.49.
      EXPECT_NEAR(row["changes"][0]["change_pct"].get<double>(), -10.0, 2.5);
    } else {
      EXPECT_NE(v, "regressed") << row["id"];
      EXPECT_NE(v, "improved") << row["id"];
    }
    regressed += v == "regressed";
  }
  EXPECT_EQ(regressed, 1);
}

TEST(CliAb, HoldTuningReplaysTheFirstRunsChoices) {
  const std::string dir = fresh_dir("ab_hold"), log = dir + ".tlog";
  std::remove(log.c_str());
  const auto r = run_cudabench("ab " + fake + " " + fake + " --suite quick --rounds 2 --hold-tuning -o " + dir +
                                   " --quiet --format csv",
                               "FAKE_TUNING_LOG=" + log);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto l = lines_of(log);
  ASSERT_EQ(l.size(), 4u);
  EXPECT_EQ(l[0].substr(0, 2), "- ");  // the first run tunes freely
  for (std::size_t i = 1; i < l.size(); ++i)
    EXPECT_NE(l[i].find("rounds/A-1.json"), std::string::npos) << l[i];  // the rest replay it
}

TEST(CliAb, ABuildThatCannotRunIsNamedAndTheOthersAreKept) {
  const std::string dir = fresh_dir("ab_fail");
  const auto r =
      run_cudabench("ab " + fake + " \"env FAKE_FAIL=1 " + fake + "\" --suite quick --rounds 2 -o " + dir + " --quiet");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("no result from build B"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("exit code 3"), std::string::npos) << r.output;
  EXPECT_EQ(read_result_file(dir + "/A.json").rounds, 2);
}

// A fresh ab into the directory of an earlier one is refused: it would replace the merged sides
// and leave the earlier session's later rounds behind. The earlier files stay as they were.
TEST(CliAb, AFreshAbDoesNotStartOverAnEarlierOne) {
  const std::string dir = fresh_dir("ab_again");
  const std::string builds = "ab " + fake + " " + fake + " --suite quick --labels old,new -o " + dir + " --quiet";
  auto r = run_cudabench(builds + " --rounds 2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string before = test::read_text(dir + "/A.json");
  r = run_cudabench(builds + " --rounds 1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("-o " + dir + ": already holds an ab (" + dir + "/ab.json); --resume continues it"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(test::read_text(dir + "/A.json"), before);
  EXPECT_TRUE(std::filesystem::exists(dir + "/rounds/A-2.json"));
}

// An ab cut short (a time limit, a lost machine) goes on where it stopped: the finished rounds are
// kept, the next ones run in the schedule's order, and the session stays the same.
TEST(CliAb, ResumeKeepsTheFinishedRoundsAndRunsTheRest) {
  const std::string dir = fresh_dir("ab_resume"), log1 = dir + ".log1", log2 = dir + ".log2";
  std::remove(log1.c_str());
  std::remove(log2.c_str());
  const std::string builds = "ab " + fake + " " + fake + " --suite quick --labels old,new -o " + dir + " --quiet";
  auto r = run_cudabench(builds + " --rounds 2", "FAKE_LOG=" + log1);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string session = read_result_file(dir + "/A.json").interleave["session"];
  r = run_cudabench(builds + " --rounds 4 --resume --format json", "FAKE_LOG=" + log2);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::vector<std::string> order;
  for (const auto& l : lines_of(log2)) order.push_back(l.substr(0, l.find(' ')));
  EXPECT_EQ(order, (std::vector<std::string>{"old", "new", "new", "old"}));  // rounds 3 (A B) and 4 (B A)
  const result_file a = read_result_file(dir + "/A.json"), b = read_result_file(dir + "/B.json");
  EXPECT_EQ(a.rounds, 4);
  EXPECT_EQ(b.rounds, 4);
  EXPECT_EQ(a.interleave["session"], session);
  EXPECT_EQ(b.interleave["session"], session);
  EXPECT_EQ(a.interleave["schedule"], "ABBAABBA");
  const auto j = nlohmann::json::parse(test::read_text(dir + "/compare.json"));
  EXPECT_EQ(j["files"][0]["rounds"], 4);
  EXPECT_EQ(j["files"][1]["same_session_as_baseline"], true);
}

// A round whose process was cut short (Ctrl-C: exit 130, a file with what finished) runs again,
// both sides, and the merged files drop its part; with every round done, --resume only compares.
TEST(CliAb, ResumeRunsACutShortRoundAgain) {
  const std::string dir = fresh_dir("ab_resume_cut"), log = dir + ".log";
  std::remove(log.c_str());
  const std::string builds = "ab " + fake + " " + fake + " --suite quick --rounds 3 -o " + dir + " --quiet";
  auto r = run_cudabench(builds);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string cut = dir + "/rounds/B-3.json", merged = dir + "/B.json";
  auto j = nlohmann::ordered_json::parse(test::read_text(cut));
  j["workloads"].erase(j["workloads"].size() - 1);
  test::write_text(cut, j.dump(1));
  auto m = nlohmann::ordered_json::parse(test::read_text(merged));
  m["round_log"][2]["exit_code"] = 130;
  test::write_text(merged, m.dump(1));
  r = run_cudabench(builds + " --resume", "FAKE_LOG=" + log);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(lines_of(log).size(), 2u);  // round 3 again: A and B
  EXPECT_EQ(read_result_file(cut).workloads.size(), 10u);
  EXPECT_EQ(read_result_file(dir + "/B.json").rounds, 3);
  std::remove(log.c_str());
  r = run_cudabench(builds + " --resume", "FAKE_LOG=" + log);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(std::filesystem::exists(log));  // nothing ran
  EXPECT_TRUE(std::filesystem::exists(dir + "/compare.md"));
}

TEST(CliAb, ResumeRefusesWhatIsNotTheSameAb) {
  const std::string dir = fresh_dir("ab_resume_bad");
  const std::string two = "ab " + fake + " " + fake;
  auto r = run_cudabench(two + " --suite quick --resume --quiet");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("give it with -o DIR"), std::string::npos) << r.output;
  r = run_cudabench(two + " --suite quick --resume -o " + dir + " --quiet");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("holds no ab to continue"), std::string::npos) << r.output;
  ASSERT_EQ(run_cudabench(two + " --suite quick --rounds 1 -o " + dir + " --quiet").exit_code, 0);
  r = run_cudabench("ab " + fake + " \"env X=1 " + fake + "\" --suite quick --resume -o " + dir + " --quiet");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("was an ab of other builds"), std::string::npos) << r.output;
  r = run_cudabench(two + " --suite full --resume -o " + dir + " --quiet");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("was an ab of other suite: {\"name\":\"quick\""), std::string::npos) << r.output;
  r = run_cudabench(two + " --suite quick --filter 'matmul/*' --resume -o " + dir + " --quiet");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("was an ab of other options"), std::string::npos) << r.output;
  r = run_cudabench(two + " --suite quick --reps 3 --resume -o " + dir + " --quiet");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("\"reps\":-1"), std::string::npos) << r.output;
  EXPECT_EQ(read_result_file(dir + "/A.json").rounds, 1);  // what was measured is untouched
}

// A job in a fixed slot: ab starts no round it does not expect to finish, compares what finished
// and exits 130; --resume runs the rest. Each fake run takes at least 0.3 s, so after round 1 at
// least 0.6 s have passed and round 2 is expected to take at least 0.6 s more: past a 1 s limit
// on any machine, however slow.
TEST(CliAb, ATimeLimitStopsBeforeARoundItCannotHoldAndResumeFinishes) {
  const std::string dir = fresh_dir("ab_time_limit"), log = dir + ".log";
  std::remove(log.c_str());
  const std::string builds = "ab " + fake + " " + fake + " --suite quick --rounds 3 -o " + dir + " --quiet";
  auto r = run_cudabench(builds + " --time-limit 1", "FAKE_SLEEP_MS=300 FAKE_LOG=" + log);
  EXPECT_EQ(r.exit_code, 130) << r.output;
  EXPECT_NE(r.output.find("ab: stopped at the time limit (1 s): 1 of 3 rounds done"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("--resume -o " + dir + " continues"), std::string::npos) << r.output;
  EXPECT_EQ(lines_of(log).size(), 2u);  // round 1, both sides; round 2 never started
  EXPECT_EQ(read_result_file(dir + "/A.json").rounds, 1);
  EXPECT_EQ(read_result_file(dir + "/B.json").rounds, 1);
  EXPECT_TRUE(std::filesystem::exists(dir + "/compare.md"));
  r = run_cudabench(builds + " --resume --time-limit 1000", "FAKE_SLEEP_MS=300 FAKE_LOG=" + log);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(lines_of(log).size(), 6u);  // rounds 2 and 3 ran
  EXPECT_EQ(read_result_file(dir + "/A.json").rounds, 3);
  EXPECT_EQ(read_result_file(dir + "/B.json").rounds, 3);
}

TEST(CliAb, BadArgumentsExitTwo) {
  auto r = run_cudabench("ab " + fake + " --suite quick");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("at least two builds"), std::string::npos) << r.output;
  r = run_cudabench("ab " + fake + " " + fake + " --suite quick --labels x");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--labels has 1 label for 2 builds"), std::string::npos) << r.output;
  r = run_cudabench("ab " + fake + " " + fake + " --suite quick --filter 'zzz*'");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = run_cudabench("ab " + fake + " " + fake + " --suite quick --time-limit 0");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--time-limit"), std::string::npos) << r.output;
  r = run_cudabench("ab " + fake + " " + fake + " --suite quick --time-limit 60 --devices 0,1", "FAKE_DEVICE_COUNT=2");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--time-limit runs on one GPU, as --resume does; it does not take --devices"),
            std::string::npos)
      << r.output;
}

namespace {

const std::string scripts_dir = std::string(CUDABENCH_CONFIG_DIR) + "/../scripts";

}  // namespace

TEST(NightlyScript, RoundsAgainstABaselineFileAndAPlantedRegression) {
  const std::string dir = fresh_dir("nightly");
  const std::string env = "CUDABENCH_ROUND_COMMAND=" + fake + " CUDABENCH=" + std::string(CUDABENCH_BINARY) + " ";
  // Night 1 becomes the baseline; night 2 is the same build: no regression.
  auto r = run_command(env + scripts_dir + "/nightly.sh --suite quick --baseline " +
                       test::data_path("results/cu121.json") + " --results-dir " + dir + " --rounds 3");
  EXPECT_EQ(r.exit_code, 2) << r.output;  // nothing in common with that file: bad input, said so
  EXPECT_NE(r.output.find("no workload in common"), std::string::npos) << r.output;
  std::filesystem::create_directories(dir + "/base");
  r = run_cudabench("--suite quick --rounds 5 -o " + dir + "/base/base.json --quiet --format csv",
                    "CUDABENCH_ROUND_COMMAND=" + fake);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_command(env + scripts_dir + "/nightly.sh --suite quick --baseline " + dir + "/base/base.json --results-dir " +
                  dir + " --rounds 5");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("no regression against"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("separate sessions"), std::string::npos) << r.output;  // the table's method line
  // A 25% slower night fails, naming the table.
  r = run_command("FAKE_SHIFT=25 " + env + scripts_dir + "/nightly.sh --suite quick --baseline " + dir +
                  "/base/base.json --results-dir " + dir + " --rounds 5");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("REGRESSION"), std::string::npos) << r.output;
  // Usage errors are exit 2 with a message.
  r = run_command(scripts_dir + "/nightly.sh --suite quick --results-dir " + dir + " --rounds");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--rounds needs a value"), std::string::npos) << r.output;
}

TEST(NightlyScript, ATimeLimitComparesTheRoundsThatFitInBothModes) {
  const std::string dir = fresh_dir("nightly_time_limit");
  std::filesystem::create_directories(dir + "/base");
  auto r = run_cudabench("--suite quick --rounds 5 -o " + dir + "/base/base.json --quiet --format csv",
                         "CUDABENCH_ROUND_COMMAND=" + fake);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // Against a stored file: `run --time-limit` keeps round 1 of 5, and tonight's file is compared.
  const std::string env = "CUDABENCH_ROUND_COMMAND=" + fake + " CUDABENCH=" + std::string(CUDABENCH_BINARY) + " ";
  r = run_command("FAKE_SLEEP_MS=600 " + env + scripts_dir + "/nightly.sh --suite quick --baseline " + dir +
                  "/base/base.json --results-dir " + dir + " --rounds 5 --time-limit 1");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("run: stopped at the time limit (1 s): 1 of 5 rounds done"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("no regression against"), std::string::npos) << r.output;
  // Against a baseline build: ab stops at the limit (its exit 130) and the finished round decides;
  // the build under test is a wrapper whose rounds run the fake 25% slower: a regression, exit 1.
  const std::string wrapper = dir + "/slower-cudabench";
  test::write_text(wrapper, "#!/bin/sh\nif [ \"$1\" = run ]; then FAKE_SHIFT=25 exec " + fake + " \"$@\"; fi\nexec " +
                                std::string(CUDABENCH_BINARY) + " \"$@\"\n");
  std::filesystem::permissions(wrapper, std::filesystem::perms::owner_all);
  r = run_command("FAKE_SLEEP_MS=600 " + scripts_dir + "/nightly.sh --suite quick --baseline-binary " + fake +
                  " --binary " + wrapper + " --results-dir " + dir + " --rounds 3 --time-limit 1");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("REGRESSION against the baseline build"), std::string::npos) << r.output;
  std::string ab_dir;  // quick-<UTC day>-ab
  for (const auto& e : std::filesystem::directory_iterator(dir))
    if (e.is_directory() && e.path().filename().string().find("-ab") != std::string::npos) ab_dir = e.path().string();
  ASSERT_FALSE(ab_dir.empty()) << r.output;
  EXPECT_EQ(read_result_file(ab_dir + "/B.json").rounds, 1);
  r = run_command(scripts_dir + "/nightly.sh --suite quick --baseline " + dir + "/base/base.json --results-dir " + dir +
                  " --time-limit 1.5");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--time-limit 1.5: expected a positive whole number of seconds"), std::string::npos)
      << r.output;
}
