// compare's reading aids beside a verdict: how cycles and energy per run moved (compare.hpp
// cycles_change_pct, energy_change_pct), the "clock: cycles unchanged" note, and how the table,
// markdown, HTML and JSON show them. Files without the metrics (every file before them) compare
// exactly as before: the goldens in test_report.cpp and test_cli_compare.cpp hold that.
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "compare_fixtures.hpp"
#include "cudabench/compare.hpp"
#include "cudabench/report.hpp"
#include "cudabench/report_html.hpp"

using namespace cudabench;

namespace {

// Five rounds of a 4096^3 fp16 GEMM in one interleaved session, `time` x the base levels, with
// `cycles` (Mcycles) and `energy` (J) per run at every sample when given.
workload_result gemm(double time, std::optional<double> cycles, std::optional<double> energy) {
  const std::vector<double> levels = {1.00, 1.01, 0.99, 1.005, 0.995};
  std::vector<double> scaled;
  for (double l : levels) scaled.push_back(l * time);
  workload_result w =
      test::rounds_workload("matmul/dtype=fp16/m=4096/n=4096/k=4096", "matmul", "time_ms", "ms", better::lower, scaled,
                            {{"dtype", "fp16"}, {"m", 4096}, {"n", 4096}, {"k", 4096}});
  const std::size_t n = w.metrics[0].second.samples.size();
  if (cycles) w.metrics.emplace_back("cycles", make_metric("Mcycles", better::lower, std::vector<double>(n, *cycles)));
  if (energy) w.metrics.emplace_back("energy_j", make_metric("J", better::lower, std::vector<double>(n, *energy)));
  w.clocks.sm_mhz = std::vector<double>(n, 1500.0 / time);
  return w;
}

comparison compare2(const workload_result& a, const workload_result& b) {
  return compare_results({test::session_file("A", {a}), test::session_file("B", {b})}, {"a.json", "b.json"}, {});
}

std::string html_page(const workload_result& a, const workload_result& b) {
  html_report_input in;
  in.files = {test::session_file("A", {a}), test::session_file("B", {b})};
  in.sources = {"a.json", "b.json"};
  std::ostringstream out;
  write_html_report(in, out);
  return out.str();
}

std::string render(const std::string& format, const comparison& c) {
  std::ostringstream out;
  make_reporter(format)->report(c, out);
  return out.str();
}

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

}  // namespace

TEST(CompareCycles, SlowerBecauseTheClockDroppedSaysCyclesUnchanged) {
  // 10% slower at a 10% lower clock: the same 3.0 Mcycles per run, and 5% more energy per run.
  const auto c = compare2(gemm(1.0, 3.0, 1.4), gemm(1.1, 3.0, 1.47));
  const auto& ch = c.rows.at(0).changes.at(0);
  EXPECT_EQ(ch.outcome, verdict::regressed);  // the verdict stays the time's
  ASSERT_TRUE(ch.cycles_change_pct);
  EXPECT_DOUBLE_EQ(*ch.cycles_change_pct, 0.0);
  ASSERT_TRUE(ch.energy_change_pct);
  EXPECT_NEAR(*ch.energy_change_pct, -5.0, 1e-9);  // positive = fewer: 5% more is -5%
  EXPECT_EQ(ch.note, "clock: cycles unchanged");
  EXPECT_EQ(ch.context, "SM clock 1500 -> 1364 MHz, cycles 0.0% fewer, energy 5.0% more; clock: cycles unchanged");
  EXPECT_TRUE(c.has_cycles_or_energy());
}

TEST(CompareCycles, SlowerCodeMovesTheCyclesToo) {
  // 10% slower at the same clock: 10% more cycles, and no clock note.
  const auto c = compare2(gemm(1.0, 3.0, 1.4), gemm(1.1, 3.3, 1.54));
  const auto& ch = c.rows.at(0).changes.at(0);
  EXPECT_EQ(ch.outcome, verdict::regressed);
  EXPECT_NEAR(*ch.cycles_change_pct, -10.0, 1e-9);
  EXPECT_NEAR(*ch.energy_change_pct, -10.0, 1e-9);
  EXPECT_EQ(ch.note, "");
  EXPECT_TRUE(has(ch.context, "cycles 10.0% more, energy 10.0% more"));
  EXPECT_FALSE(has(ch.context, "clock:"));
}

TEST(CompareCycles, CyclesWithinTheThresholdCountAsUnchangedBeyondItNot) {
  // 1.9% fewer cycles is under the 2% threshold; 2.5% is not.
  EXPECT_EQ(compare2(gemm(1.0, 3.0, std::nullopt), gemm(0.9, 2.943, std::nullopt)).rows[0].changes[0].note,
            "clock: cycles unchanged");
  EXPECT_EQ(compare2(gemm(1.0, 3.0, std::nullopt), gemm(0.9, 2.925, std::nullopt)).rows[0].changes[0].note, "");
}

TEST(CompareCycles, UnchangedRowsGetTheNumbersButNoNote) {
  const auto c = compare2(gemm(1.0, 3.0, 1.4), gemm(1.0, 3.0, 1.4));
  const auto& ch = c.rows.at(0).changes.at(0);
  EXPECT_EQ(ch.outcome, verdict::unchanged);
  EXPECT_DOUBLE_EQ(*ch.cycles_change_pct, 0.0);
  EXPECT_DOUBLE_EQ(*ch.energy_change_pct, 0.0);
  EXPECT_EQ(ch.note, "");
  EXPECT_EQ(ch.context, "");
}

TEST(CompareCycles, OneSideWithoutTheMetricsGivesNoChange) {
  // An old baseline (no cycles, no energy) against a new candidate: nothing to compare them with.
  const auto c = compare2(gemm(1.0, std::nullopt, std::nullopt), gemm(1.1, 3.0, 1.47));
  const auto& ch = c.rows.at(0).changes.at(0);
  EXPECT_EQ(ch.outcome, verdict::regressed);
  EXPECT_FALSE(ch.cycles_change_pct);
  EXPECT_FALSE(ch.energy_change_pct);
  EXPECT_EQ(ch.note, "");
  EXPECT_EQ(ch.context, "SM clock 1500 -> 1364 MHz");  // as before the metrics existed
  EXPECT_FALSE(c.has_cycles_or_energy());
  EXPECT_FALSE(has(render("table", c), "cycles"));
  EXPECT_FALSE(has(render("markdown", c), "cycles"));
}

TEST(CompareCycles, EveryFormatShowsThem) {
  const auto c = compare2(gemm(1.0, 3.0, 1.4), gemm(1.1, 3.0, 1.47));
  const std::string table = render("table", c);
  EXPECT_TRUE(has(table, "verdict    cycles  energy")) << table;
  EXPECT_TRUE(has(table, "regressed   +0.0%   -5.0%")) << table;
  EXPECT_TRUE(has(table, "cycles, energy: change of the medians per run, positive = fewer")) << table;
  EXPECT_TRUE(has(table,
                  "context: matmul fp16 4096³ (ms): SM clock 1500 -> 1364 MHz, cycles 0.0% fewer, energy "
                  "5.0% more; clock: cycles unchanged"))
      << table;

  const std::string md = render("markdown", c);
  EXPECT_TRUE(has(md, "regressed** (mde ")) << md;
  EXPECT_TRUE(has(md, "; cycles +0.0%, energy -5.0%) |")) << md;

  const std::string html = html_page(gemm(1.0, 3.0, 1.4), gemm(1.1, 3.0, 1.47));
  EXPECT_TRUE(has(html, "; cycles +0.0%, energy -5.0%")) << html;
  EXPECT_TRUE(has(html, "clock: cycles unchanged")) << html;

  const auto j = nlohmann::json::parse(render("json", c));
  EXPECT_EQ(j["compare_schema_version"], "1.3");
  const auto& change = j["rows"][0]["changes"][0];
  EXPECT_DOUBLE_EQ(change["cycles_change_pct"].get<double>(), 0.0);
  EXPECT_NEAR(change["energy_change_pct"].get<double>(), -5.0, 1e-9);
  EXPECT_EQ(change["note"], "clock: cycles unchanged");
  EXPECT_DOUBLE_EQ(j["rows"][0]["values"][0]["cycles"].get<double>(), 3.0);
  EXPECT_DOUBLE_EQ(j["rows"][0]["values"][1]["energy_j"].get<double>(), 1.47);
}

TEST(CompareCycles, JsonOfOldFilesHasNullChanges) {
  const auto j = nlohmann::json::parse(
      render("json", compare2(gemm(1.0, std::nullopt, std::nullopt), gemm(1.0, std::nullopt, std::nullopt))));
  const auto& change = j["rows"][0]["changes"][0];
  EXPECT_TRUE(change["cycles_change_pct"].is_null());
  EXPECT_TRUE(change["energy_change_pct"].is_null());
  EXPECT_FALSE(j["rows"][0]["values"][0].contains("cycles"));
}

TEST(CompareCycles, CountedSmCyclesAreUsedWhereBothFilesHaveThem) {
  // 10% slower at the cap. NVML's point samples after the repetitions say 8% more cycles; the SMs'
  // counters say the same 2.0 Mcycles per run: the counted ones are the reading aid, and the
  // clock, not the code, moved.
  auto a = gemm(1.0, 3.0, 1.4);
  auto b = gemm(1.1, 3.24, 1.47);
  const std::size_t n = a.metrics[0].second.samples.size();
  a.metrics.emplace_back("sm_cycles", make_metric("Mcycles", better::lower, std::vector<double>(n, 2.0)));
  b.metrics.emplace_back("sm_cycles", make_metric("Mcycles", better::lower, std::vector<double>(n, 2.0)));
  const auto c = compare2(a, b);
  const auto& ch = c.rows.at(0).changes.at(0);
  EXPECT_EQ(ch.outcome, verdict::regressed);
  ASSERT_TRUE(ch.cycles_change_pct);
  EXPECT_DOUBLE_EQ(*ch.cycles_change_pct, 0.0);
  EXPECT_EQ(ch.note, "clock: cycles unchanged");
  EXPECT_TRUE(has(render("markdown", c), "sm_cycles where both files have it"));

  // Only one file has them (an older baseline): NVML's cycles on both sides, never a mix.
  auto old_base = gemm(1.0, 3.0, 1.4);
  const auto mixed = compare2(old_base, b);
  const auto& mch = mixed.rows.at(0).changes.at(0);
  ASSERT_TRUE(mch.cycles_change_pct);
  EXPECT_NEAR(*mch.cycles_change_pct, -8.0, 1e-9);
  EXPECT_EQ(mch.note, "");
}

TEST(CompareCycles, AnSmCyclesRowGetsNoClockNote) {
  // Judging sm_cycles itself (compare --metric sm_cycles): a cycles row never says "clock: cycles
  // unchanged" about itself.
  auto a = gemm(1.0, 3.0, 1.4);
  auto b = gemm(1.1, 3.0, 1.47);
  const std::size_t n = a.metrics[0].second.samples.size();
  std::vector<double> base_cycles, cand_cycles;
  for (double t : a.metrics[0].second.samples) base_cycles.push_back(2.0 * t);
  for (double t : b.metrics[0].second.samples) cand_cycles.push_back(2.0 * t);
  a.metrics.emplace_back("sm_cycles", make_metric("Mcycles", better::lower, base_cycles));
  b.metrics.emplace_back("sm_cycles", make_metric("Mcycles", better::lower, cand_cycles));
  a.metrics.back().second.rounds = a.metrics[0].second.rounds;
  b.metrics.back().second.rounds = b.metrics[0].second.rounds;
  ASSERT_EQ(a.metrics.back().second.samples.size(), n);
  compare_options o;
  o.metrics = {"sm_cycles"};
  const auto c = compare_results({test::session_file("A", {a}), test::session_file("B", {b})}, {"a.json", "b.json"}, o);
  const auto& ch = c.rows.at(0).changes.at(0);
  EXPECT_EQ(c.rows.at(0).metric, "sm_cycles");
  EXPECT_EQ(ch.outcome, verdict::regressed);
  EXPECT_EQ(ch.note, "");
}
