// merge_rounds(): several rounds' result files become one, samples tagged with their round, and
// nothing measured is dropped when a round fails or stops early. Also the new result fields
// (rounds, power, tuning, interleave) survive a write and read.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "compare_fixtures.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/round_merge.hpp"
#include "test_support.hpp"

using namespace cudabench;

namespace {

round_input round_of(std::vector<workload_result> ws, const std::string& started = "2026-12-03T10:00:00Z") {
  round_input r;
  r.result = test::make_file("CUDA 13.0", std::move(ws));
  r.result.suite = {{"name", "quick"}, {"sha256", "ab"}};
  r.result.started_at = started;
  r.result.finished_at = started;
  return r;
}

workload_result step(std::vector<double> s, nlohmann::ordered_json tuning = {{"v", 1}}) {
  auto w = test::single_metric_workload("train_step/x", "train_step", "step_ms", "ms", better::lower, std::move(s));
  w.tuning = std::move(tuning);
  w.clocks.sm_mhz = {1980};
  w.clocks.power_w = {650};
  return w;
}

}  // namespace

TEST(RoundMerge, SamplesCarryTheirRound) {
  const result_file m =
      merge_rounds({round_of({step({1.0, 1.1})}), round_of({step({2.0, 2.1})}, "2026-12-03T10:01:00Z")});
  EXPECT_EQ(m.rounds, 2);
  ASSERT_EQ(m.round_log.size(), 2u);
  EXPECT_EQ(m.settings["rounds"], 2);
  EXPECT_EQ(m.finished_at, "2026-12-03T10:01:00Z");
  ASSERT_EQ(m.workloads.size(), 1u);
  const metric& s = m.workloads[0].metrics[0].second;
  EXPECT_EQ(s.samples, (std::vector<double>{1.0, 1.1, 2.0, 2.1}));
  EXPECT_EQ(s.rounds, (std::vector<int>{0, 0, 1, 1}));
  EXPECT_DOUBLE_EQ(s.median, 1.55);  // summary recomputed over every round
  EXPECT_EQ(m.workloads[0].clocks.power_w, (std::vector<double>{650, 650}));
  EXPECT_TRUE(m.workloads[0].tuning_by_round.empty());  // same choice every round
}

TEST(RoundMerge, DifferentTuningIsKeptPerRound) {
  const result_file m = merge_rounds({round_of({step({1.0}, {{"v", 1}})}), round_of({step({1.0}, {{"v", 2}})})});
  EXPECT_EQ(m.workloads[0].tuning, (nlohmann::ordered_json{{"v", 1}}));
  ASSERT_EQ(m.workloads[0].tuning_by_round.size(), 2u);
  EXPECT_EQ(m.workloads[0].tuning_by_round[1]["tuning"]["v"], 2);
}

TEST(RoundMerge, EnergyOfTheRoundsThatHaveItAndTheFirstReasonWhyNot) {
  // Round 1 measured energy; round 2's repetitions were too short: its samples are round 1's alone,
  // and the merged workload says which round lacked it and why.
  workload_result with = step({1.0, 1.1});
  with.metrics.emplace_back("energy_j", make_metric("J", better::lower, {0.7, 0.72}));
  workload_result without = step({1.2, 1.3});
  without.clocks.energy_absent = "repetition 0 lasted 25 ms";
  const result_file m = merge_rounds({round_of({with}), round_of({without})});
  const metric* e = m.workloads[0].find_metric("energy_j");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->samples, (std::vector<double>{0.7, 0.72}));
  EXPECT_EQ(e->rounds, (std::vector<int>{0, 0}));
  EXPECT_EQ(m.workloads[0].clocks.energy_absent, "round 2: repetition 0 lasted 25 ms");
}

TEST(RoundMerge, AFailedRoundMakesTheWorkloadFailedButKeepsTheSamples) {
  auto bad = step({1.0});
  bad.metrics.clear();
  bad.state = status::oom;
  bad.message = "cudaMalloc failed";
  const result_file m = merge_rounds({round_of({step({1.0})}), round_of({bad})});
  EXPECT_EQ(m.workloads[0].state, status::oom);
  EXPECT_EQ(m.workloads[0].message, "round 2 of 2: cudaMalloc failed");
  EXPECT_EQ(m.workloads[0].metrics[0].second.samples, (std::vector<double>{1.0}));
}

TEST(RoundMerge, ARoundWithoutAFileIsLoggedAndOthersStand) {
  round_input dead;
  dead.has_result = false;
  dead.exit_code = 139;
  dead.note = "no result file (exit code 139)";
  const result_file m = merge_rounds({round_of({step({1.0})}), dead});
  EXPECT_EQ(m.rounds, 2);
  EXPECT_EQ(m.round_log[1]["exit_code"], 139);
  EXPECT_EQ(m.workloads[0].state, status::ok);
  EXPECT_NE(m.workloads[0].message.find("missing from round 2"), std::string::npos) << m.workloads[0].message;
  EXPECT_THROW(merge_rounds({dead}), input_error);
  round_input other = round_of({step({1.0})});
  other.result.suite["sha256"] = "cd";
  EXPECT_THROW(merge_rounds({round_of({step({1.0})}), other}), input_error);
}

TEST(RoundMerge, MergedFileRoundTrips) {
  result_file m = merge_rounds({round_of({step({1.0, 1.1})}), round_of({step({2.0})})});
  m.interleave = {{"session", "s-1"}, {"side", "B"}, {"schedule", "ABBA"}};
  const std::string path = test::temp_path("merged_roundtrip.json");
  write_result_file(m, path);
  const result_file r = read_result_file(path);
  EXPECT_EQ(r.rounds, 2);
  EXPECT_EQ(r.interleave["session"], "s-1");
  EXPECT_EQ(r.workloads[0].metrics[0].second.rounds, (std::vector<int>{0, 0, 1}));
  EXPECT_EQ(r.workloads[0].clocks.power_w.size(), 2u);
  EXPECT_EQ(r.workloads[0].tuning["v"], 1);
  // A round index per sample, or the file is refused.
  auto j = nlohmann::ordered_json::parse(test::read_text(path));
  j["workloads"][0]["metrics"]["step_ms"]["rounds"] = {0};
  test::write_text(path, j.dump());
  EXPECT_THROW(read_result_file(path), input_error);
}
