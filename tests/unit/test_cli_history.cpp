// `cudabench history` through the real binary: exit codes, formats, and the check nightly.sh runs.
#include <algorithm>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "history_fixtures.hpp"
#include "test_support.hpp"

using cudabench::test::data_path;
using cudabench::test::read_text;
using cudabench::test::temp_path;
using cudabench::test::write_night;

namespace {

std::string fresh_dir(const std::string& name) {
  const std::string d = temp_path(name);
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

std::string night_file(const std::string& dir, int n) { return dir + "/night-" + std::to_string(n) + ".json"; }

// Nights 0..count-1; from night `step_at` on, times are 7% slower under commit def2222.
void write_nights(const std::string& dir, int count, int step_at) {
  for (int n = 0; n < count; ++n)
    write_night(night_file(dir, n), n, n < step_at ? "abc1111" : "def2222", n < step_at ? 1.0 : 1.07,
                ((n * 37) % 7 - 3) * 0.001);
}

}  // namespace

TEST(CliHistory, AddIsIdempotentAndBadFilesAreExitTwoNamingThem) {
  const std::string dir = fresh_dir("cli_hist_add"), db = dir + "/h.sqlite";
  write_nights(dir, 2, 99);
  auto r = run_cudabench("history add " + night_file(dir, 0) + " " + night_file(dir, 1) + " --db " + db);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("stored as run 1"), std::string::npos) << r.output;
  r = run_cudabench("history add " + night_file(dir, 0) + " --db " + db);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("already stored (run 1); nothing added"), std::string::npos) << r.output;
  r = run_cudabench("history list --db " + db + " --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 3) << r.output;  // header + 2 runs

  for (const std::string& bad : {data_path("results/malformed.json"), data_path("results/schema_v2.json"),
                                 std::string(CUDABENCH_CONFIG_DIR) + "/full.json"}) {
    r = run_cudabench("history add " + bad + " --db " + db);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find(bad), std::string::npos) << r.output;
  }
  // A database that is not ours: exit 2 naming it, and it is left as it was.
  const std::string foreign = dir + "/foreign.sqlite";
  cudabench::test::write_text(foreign,
                              "hello, not a database..........................................................");
  r = run_cudabench("history add " + night_file(dir, 0) + " --db " + foreign);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(foreign + ": not a cudabench history database"), std::string::npos) << r.output;
  r = run_cudabench("history list --db " + dir + "/missing.sqlite");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("no history database here"), std::string::npos) << r.output;
  const std::string empty = dir + "/empty.sqlite";  // e.g. a result file's name typed as the database
  cudabench::test::write_text(empty, "");
  for (const std::string cmd : {"history list --db " + empty, "noise --history " + empty}) {
    r = run_cudabench(cmd);
    EXPECT_EQ(r.exit_code, 2) << cmd << ": " << r.output;
    EXPECT_NE(r.output.find(empty + ": an empty file or database, not a cudabench history"), std::string::npos)
        << cmd << ": " << r.output;
  }
  r = run_cudabench("history");
  EXPECT_EQ(r.exit_code, 2) << r.output;  // a subcommand is required
}

TEST(CliHistory, ShowMarksTheStepInEveryFormat) {
  const std::string dir = fresh_dir("cli_hist_show"), db = dir + "/h.sqlite";
  write_nights(dir, 20, 12);
  std::string files;
  for (int n = 0; n < 20; ++n) files += " " + night_file(dir, n);
  ASSERT_EQ(run_cudabench("history add" + files + " --db " + db + " --quiet").exit_code, 0);
  const std::string step =
      "matmul fp16 4096³ (ms) stepped +7.0% (worse) at 2026-11-13T02:30:00Z (run 13; commit abc1111 \u2192 def2222)";
  auto r = run_cudabench("history show --db " + db + " --filter 'matmul/*fp16*'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(step), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("<- step +7.0% (worse)"), std::string::npos) << r.output;
  r = run_cudabench("history show --db " + db + " --filter 'matmul/*fp16*' --format markdown");
  EXPECT_NE(r.output.find("- " + step), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("| 13 | 2026-11-13T02:30:00Z |"), std::string::npos) << r.output;
  r = run_cudabench("history show --db " + db + " --filter 'matmul/*fp16*' --format csv");
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 21) << r.output;
  r = run_cudabench("history show --db " + db + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output);
  EXPECT_EQ(j["history_schema_version"], 2);
  EXPECT_EQ(j["runs"][0]["device_uuid"], "GPU-00000000");  // cu121.json's card
  EXPECT_EQ(j["runs"].size(), 20u);
  EXPECT_EQ(j["series"].size(), 6u);
  EXPECT_EQ(j["series"][0]["steps"][0]["run_id"], 13);
  EXPECT_EQ(j["series"][0]["steps"][0]["changed"], "commit abc1111 \u2192 def2222");
  const std::string html = dir + "/history.html";
  r = run_cudabench("history show --db " + db + " --format html -o " + html);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string page = read_text(html);
  EXPECT_NE(page.find("Content-Security-Policy"), std::string::npos);
  EXPECT_EQ(std::count(page.begin(), page.end(), '\n') > 10, true);
  std::size_t charts = 0;
  for (auto p = page.find("data-chart=\"history\""); p != std::string::npos;
       p = page.find("data-chart=\"history\"", p + 1))
    ++charts;
  EXPECT_EQ(charts, 6u);
  EXPECT_NE(page.find("class=\"step\""), std::string::npos);
  // Raising the threshold past the step hides it; a bad option is exit 2.
  r = run_cudabench("history show --db " + db + " --threshold 10");
  EXPECT_NE(r.output.find("Steps:\n  none"), std::string::npos) << r.output;
  r = run_cudabench("history show --db " + db + " --alpha 0.001 --permutations 100");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  r = run_cudabench("history show --db " + db + " --metric nonsense");
  EXPECT_EQ(r.exit_code, 2) << r.output;
}

TEST(CliHistory, CheckFailsOnceWhenTheNewestRunConfirmsAStep) {
  // Step at night 12 of 18. Nights are added one by one, checking after each: the check fails on
  // the night that makes the step significant, and not again afterwards. With the default alpha
  // (0.001) a 12-night history needs 5 runs on the new level (night 16): a permutation test of
  // n runs cannot give a p-value below about 2 / C(n, runs after the step). With --alpha 0.01, 3
  // runs (night 14) are enough.
  for (const auto& [alpha, expected] : {std::pair<std::string, int>{"", 16}, {" --alpha 0.01", 14}}) {
    const std::string dir = fresh_dir("cli_hist_check"), db = dir + "/h.sqlite";
    write_nights(dir, 18, 12);
    int first_fail = -1, fails = 0;
    std::string before;  // the nights before the step, in one call
    for (int n = 0; n < 11; ++n) before += " " + night_file(dir, n);
    ASSERT_EQ(run_cudabench("history add" + before + " --db " + db + " --quiet").exit_code, 0);
    for (int n = 11; n < 18; ++n) {
      ASSERT_EQ(run_cudabench("history add " + night_file(dir, n) + " --db " + db + " --quiet").exit_code, 0);
      const auto r = run_cudabench("history check --db " + db + alpha);
      ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << r.output;
      if (r.exit_code == 1) {
        ++fails;
        if (first_fail < 0) first_fail = n;
        EXPECT_NE(
            r.output.find("NEW STEP (worse): matmul fp16 4096³ (ms) stepped +7.0% (worse) at 2026-11-13T02:30:00Z"),
            std::string::npos)
            << r.output;
      } else {
        EXPECT_NE(r.output.find("history: no new step at the newest run"), std::string::npos) << r.output;
      }
    }
    EXPECT_EQ(first_fail, expected) << alpha;
    EXPECT_EQ(fails, 1) << alpha;
  }
}

TEST(CliHistory, ItsRunsMeasureEachRowsSessionNoise) {
  // Four nights of cu121.json (H200) whose levels wobble by up to 0.3%: every row's session noise
  // now comes from the history (4 sessions, df 3), and compare --history says so. A row the
  // history lacks (a GPU model it never saw) falls back, said in the output; a database that is
  // not a history is exit 2 naming it.
  const std::string dir = fresh_dir("cli_hist_noise"), db = dir + "/h.sqlite";
  write_nights(dir, 4, 99);
  for (int n = 0; n < 4; ++n)
    ASSERT_EQ(run_cudabench("history add " + night_file(dir, n) + " --db " + db + " --quiet").exit_code, 0);
  auto r = run_cudabench("noise " + data_path("results/cu121.json") + " --history " + db + " --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(
      r.output.find("matmul/dtype=fp32/m=8192/n=4096/k=1024 · time_ms,NVIDIA H200,history,4,3,0.258,2.500,fallback"),
      std::string::npos)
      << r.output;
  // The d2d 1 GiB row is also in the committed prior (11 sessions, df 10): pooled, df 3 + 10. The
  // nights move by (n * 37 % 7 - 3) * 0.1%: an sd of 0.258%.
  EXPECT_NE(r.output.find("memory_bandwidth/op=d2d/bytes=1073741824 · gbps,NVIDIA H200,history+committed,15,13,"),
            std::string::npos)
      << r.output;
  r = run_cudabench("compare " + data_path("results/cu121.json") + " " + data_path("results/cu124.json") +
                    " --history " + db + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("\"session_source\": \"history\""), std::string::npos) << r.output;
  r = run_cudabench("compare " + data_path("results/cu121_a100.json") + " " + data_path("results/cu124.json") +
                    " --history " + db);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("fallback: no measured sessions of that row on this GPU model"), std::string::npos)
      << r.output;
  // report takes the same history and says where its rows' session noise came from, as compare does.
  const std::string page = dir + "/report.html";
  r = run_cudabench("report " + data_path("results/cu121.json") + " " + data_path("results/cu124.json") +
                    " --history " + db + " -o " + page + " --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(cudabench::test::read_text(page).find(", history "), std::string::npos);
  r = run_cudabench("report " + data_path("results/cu121.json") + " " + data_path("results/cu124.json") + " -o " +
                    page + " --quiet");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(cudabench::test::read_text(page).find(", history "), std::string::npos);
  const std::string foreign = dir + "/foreign.sqlite";
  cudabench::test::write_text(foreign, "not a database at all.............................................");
  r = run_cudabench("report " + data_path("results/cu121.json") + " " + data_path("results/cu124.json") +
                    " --history " + foreign + " -o " + page);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(foreign), std::string::npos) << r.output;
  r = run_cudabench("compare " + data_path("results/cu121.json") + " " + data_path("results/cu124.json") +
                    " --history " + foreign);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(foreign), std::string::npos) << r.output;
  r = run_cudabench("noise --history " + dir + "/missing.sqlite");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("no history database here"), std::string::npos) << r.output;
}

TEST(CliHistory, CommittedResultFilesInAHistoryAreNotCountedTwice) {
  // Two H100 session files that configs/noise_prior.json was measured from, added to a history (as
  // someone seeding a history from results/ would): their sessions are in the prior already, so the
  // history leaves them out and Llama-2-7B's H100 session noise is the prior's alone (14 sessions,
  // df 11), not 16 sessions with df 12 (what the copies below give); `noise` says how many runs it left out.
  const std::string dir = fresh_dir("cli_hist_committed"), db = dir + "/h.sqlite";
  const std::string h100 = std::string(CUDABENCH_CONFIG_DIR) + "/../results/h100/verdicts/";
  for (const std::string f : {"full-3rounds-ecbe66b/full-3rounds.json", "session2-cde2881/full-3rounds.json"})
    ASSERT_EQ(run_cudabench("history add " + h100 + f + " --db " + db + " --quiet").exit_code, 0);
  const auto r =
      run_cudabench("noise --history " + db +
                    " --filter 'llm_decode/model=llama-2-7b/*prompt_tokens=128*' --metric decode_tokens_per_s "
                    "--gpu 'NVIDIA H100 80GB HBM3' --format table");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("NVIDIA H100 80GB HBM3  committed        14  11           1.092"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("(2 of its runs left out: files the committed prior was measured from)"), std::string::npos)
      << r.output;
  // Copies that differ by one byte are other files: stored in place of the originals (the same run
  // by started_at, host, suite and label), they are sessions the prior has not seen, pooled with it.
  for (const std::string f : {"full-3rounds-ecbe66b/full-3rounds.json", "session2-cde2881/full-3rounds.json"}) {
    const std::string copy = dir + "/" + f.substr(0, f.find('/')) + ".json";
    cudabench::test::write_text(copy, read_text(h100 + f) + "\n");
    ASSERT_EQ(run_cudabench("history add " + copy + " --db " + db + " --quiet").exit_code, 0);
  }
  const auto r2 =
      run_cudabench("noise --history " + db +
                    " --filter 'llm_decode/model=llama-2-7b/*prompt_tokens=128*' --metric decode_tokens_per_s "
                    "--gpu 'NVIDIA H100 80GB HBM3'");
  ASSERT_EQ(r2.exit_code, 0) << r2.output;
  EXPECT_NE(r2.output.find("NVIDIA H100 80GB HBM3  history+committed        16  12"), std::string::npos) << r2.output;
  EXPECT_EQ(r2.output.find("left out"), std::string::npos) << r2.output;
}

TEST(CliHistory, AnAbsTwoSidesInAHistoryAreOneSession) {
  // The two sides of an interleaved ab (A and B alternate processes in one machine start, so their
  // times overlap on one host) and one file of another session, stored as copies the prior has not
  // seen: two sessions (df 1) beside the prior's 14 (df 11), not three; `noise` says it merged one run.
  const std::string dir = fresh_dir("cli_hist_ab"), db = dir + "/h.sqlite";
  const std::string h100 = std::string(CUDABENCH_CONFIG_DIR) + "/../results/h100/verdicts/";
  for (const std::string f :
       {"aa-full-5rounds-a9cb21a/A.json", "aa-full-5rounds-a9cb21a/B.json", "full-3rounds-ecbe66b/full-3rounds.json"}) {
    const std::string copy = dir + "/" + f.substr(0, f.find('/')) + "-" + f.substr(f.find('/') + 1);
    cudabench::test::write_text(copy, read_text(h100 + f) + "\n");
    ASSERT_EQ(run_cudabench("history add " + copy + " --db " + db + " --quiet").exit_code, 0);
  }
  const auto r = run_cudabench("noise --history " + db +
                               " --filter 'llm_decode/model=llama-2-7b/*prompt_tokens=128*' --metric "
                               "decode_tokens_per_s --gpu 'NVIDIA H100 80GB HBM3'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("NVIDIA H100 80GB HBM3  history+committed        16  12"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(1 run measured at the same time as another on one card (an ab's other side) counted in "
                          "that run's session)"),
            std::string::npos)
      << r.output;
}
