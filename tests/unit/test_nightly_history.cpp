// `nightly.sh --history DB` end to end with the fake cudabench: each run is added, the report and
// history pages are written, and a new step for the worse fails the night even when the
// comparison with the baseline does not.
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cli_runner.hpp"
#include "cudabench/result.hpp"
#include "test_support.hpp"

using cudabench::test::temp_path;

namespace {

std::string fresh_history_dir(const std::string& name) {
  const std::string d = temp_path(name);
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

}  // namespace

TEST(NightlyScript, HistoryAddsEachRunWritesPagesAndFailsOnANewStep) {
  const std::string dir = fresh_history_dir("nightly_hist"), db = dir + "/history.sqlite";
  const std::string fake = CUDABENCH_FAKE_BINARY, binary = CUDABENCH_BINARY;
  const std::string scripts = std::string(CUDABENCH_CONFIG_DIR) + "/../scripts";
  // 23 past nights from the fake, dated January 2020: 21 at the usual level, then 2 with fake/i=0
  // 25% slower. (With the default alpha 0.001 the permutation test needs about 24 runs before a
  // step 3 runs from the end can be significant: docs/history.md.)
  for (int n = 0; n < 23; ++n) {
    const std::string f = dir + "/past-" + std::to_string(n) + ".json";
    const std::string cmd = "env " + std::string(n >= 21 ? "FAKE_SHIFT=25 " : "") + fake + " run -o " + f;
    ASSERT_EQ(std::system(cmd.c_str()), 0);
    auto res = cudabench::read_result_file(f);
    res.started_at = fmt::format("2020-01-{:02d}T02:30:00Z", n + 1);
    res.finished_at = fmt::format("2020-01-{:02d}T02:31:00Z", n + 1);  // one session a night
    cudabench::write_result_file(res, f);
    ASSERT_EQ(run_cudabench("history add " + f + " --db " + db + " --quiet").exit_code, 0);
  }
  // Tonight, slower too, compared with a slower night as baseline: compare sees no regression,
  // but the history's newest run confirms a step (a third run on the new level) and fails.
  const std::string env = "FAKE_SHIFT=25 CUDABENCH_ROUND_COMMAND=" + fake + " CUDABENCH=" + binary + " ";
  const std::string cmd = env + scripts + "/nightly.sh --suite quick --baseline " + dir +
                          "/past-22.json --results-dir " + dir + "/out --rounds 3 --history " + db + " 2>&1";
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  ASSERT_NE(p, nullptr);
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int st = pclose(p);
  EXPECT_EQ(WEXITSTATUS(st), 1) << out;
  EXPECT_NE(out.find("no regression against"), std::string::npos) << out;  // compare's verdict
  EXPECT_NE(out.find("NEW STEP (worse): fake/i=0 \u00b7 step_ms (ms) stepped +2"), std::string::npos) << out;
  EXPECT_NE(out.find("NEW STEP for the worse in the history"), std::string::npos) << out;
  // The pages beside the results. The page judges with the history's session noise, as the table
  // does: both say where each row's session noise came from, and say the same.
  std::string page, table;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/out")) {
    if (e.path().extension() == ".html" && e.path().filename() != "history.html")
      page = cudabench::test::read_text(e.path().string());
    if (e.path().extension() == ".md") table = cudabench::test::read_text(e.path().string());
  }
  ASSERT_FALSE(page.empty());
  auto sources = [](const std::string& text) {
    const std::string key = "session noise per row from: ";
    const auto at = text.find(key);
    if (at == std::string::npos) return std::string();
    const auto end = text.find_first_of("(<", at);  // the list ends at its note or the markup around it
    return text.substr(at, text.find_last_not_of(' ', end - 1) + 1 - at);
  };
  EXPECT_NE(sources(table).find("history"), std::string::npos) << sources(table);
  EXPECT_EQ(sources(page), sources(table));
  EXPECT_TRUE(std::filesystem::exists(dir + "/out/history.html"));
  const auto runs = run_cudabench("history list --db " + db + " --format csv");
  EXPECT_EQ(std::count(runs.output.begin(), runs.output.end(), '\n'), 25) << runs.output;  // header + 24
}

// A baseline that is no file is refused before the night's run; a run that cannot start leaves no
// empty .rounds folder; a baseline the reader refuses fails the night with exit 2 and keeps
// tonight's result.
TEST(NightlyScript, BadBaselinesAndRunsThatCannotStartLeaveNothingBehind) {
  const std::string dir = fresh_history_dir("nightly_bad"), fake = CUDABENCH_FAKE_BINARY;
  const std::string scripts = std::string(CUDABENCH_CONFIG_DIR) + "/../scripts";
  const std::string env = "CUDABENCH_ROUND_COMMAND=" + fake + " CUDABENCH=" + std::string(CUDABENCH_BINARY) + " ";
  auto night = [&](const std::string& baseline, const std::string& more_env = "") {
    return run_command(more_env + env + scripts + "/nightly.sh --suite quick --baseline " + baseline +
                       " --results-dir " + dir + "/out --rounds 2");
  };
  auto r = night("/dev/zero");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("nightly: baseline /dev/zero is not a regular file"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir + "/out"));

  const std::string good = cudabench::test::data_path("results/cu121.json");
  r = night(good, "FAKE_FAIL=1 ");
  EXPECT_EQ(r.exit_code, 3) << r.output;
  ASSERT_TRUE(std::filesystem::exists(dir + "/out"));
  EXPECT_TRUE(std::filesystem::is_empty(dir + "/out")) << "an empty .rounds folder or a partial file was left";

  const std::string negative = dir + "/negative.json";
  std::string text = cudabench::test::read_text(good);
  const auto start = text.find("\"samples\": [") + 12;
  text.replace(start, text.find_first_of(",]", start) - start, "-1");
  cudabench::test::write_text(negative, text);
  r = night(negative);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(negative + ": workloads[0].metrics.time_ms.samples[0]: -1 ms is not a possible time"),
            std::string::npos)
      << r.output;
  bool kept = false;
  for (const auto& e : std::filesystem::directory_iterator(dir + "/out"))
    kept = kept || (e.path().extension() == ".json" && cudabench::read_result_file(e.path()).rounds == 2);
  EXPECT_TRUE(kept) << "tonight's result was not kept";
}
