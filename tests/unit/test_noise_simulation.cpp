// Simulated before trusted (issue 22): the verdicts with noise measured per row, as nightly mode
// uses them (a stored baseline from one session, tonight's run from another, the rows' session
// noise estimated from a history of earlier sessions) and as interleaved `ab` does. 40 rows whose
// true noise is the committed prior's measurement of 40 H200 rows (configs/noise_prior.json), so
// the noise is heterogeneous per row (0.01% to 37%). Each trial draws a fresh history, so the
// estimate's own uncertainty (its df) is part of what is tested. Rates and power are printed.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "compare_fixtures.hpp"
#include "cudabench/compare.hpp"
#include "cudabench/noise_prior.hpp"
#include "cudabench/round_test.hpp"

using namespace cudabench;

namespace {

struct sim_row {
  std::string id;
  double round_sd = 0, session_sd = 0;
};

// 40 timed rows of the committed prior, evenly over its sorted list (GEMMs, copies, LLM, ResNet,
// Transformer, training): truth = their measured sds.
std::vector<sim_row> measured_rows() {
  std::vector<sim_row> all;
  for (const auto& r : noise_prior::committed().rows())
    if (r.gpu == "NVIDIA H200" && r.round_sd && r.session_sd && *r.round_sd > 1e-4 && *r.session_sd > 1e-4 &&
        (r.metric == "time_ms" || r.metric == "decode_tokens_per_s" || r.metric == "images_per_s" ||
         r.metric == "step_ms"))
      all.push_back({r.id, *r.round_sd, *r.session_sd});
  std::vector<sim_row> out;
  for (std::size_t i = 0; i < 40 && !all.empty(); ++i) out.push_back(all[i * all.size() / 40]);
  return out;
}

struct scenario {
  int rounds = 3;            // per side
  int history_sessions = 4;  // earlier sessions in the history (nightly mode)
  // Runs stored per history session: 2 = both sides of an A/A ab added to the history. With
  // `timed_history` their times overlap (one machine start), as a real ab's do; without, nothing
  // says they share a session and each counts as one.
  int history_runs_per_session = 1;
  bool timed_history = true;
  bool interleaved = false;  // one `ab` session: no session noise, no history needed
  int planted_row = -1;      // this row's candidate is slower by `shift`
  double shift = 0;
  double planted_round_sd = 0.001, planted_session_sd = 0.006;  // the planted row's true noise
  double threshold_pct = 2.0;                                   // compare's --threshold
};

// The within-session prior every scenario has (what the committed prior gives compare): each row's
// round sd with 14 df, no session information (that comes from the simulated history).
noise_prior round_prior(const std::vector<sim_row>& rows, const scenario& s) {
  nlohmann::json doc{{"noise_prior_version", 1}, {"rows", nlohmann::json::array()}};
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double rsd = static_cast<int>(i) == s.planted_row ? s.planted_round_sd : rows[i].round_sd;
    doc["rows"].push_back({{"gpu", "SIM"},
                           {"id", rows[i].id},
                           {"metric", "time_ms"},
                           {"sessions", 4},
                           {"round_sd", rsd},
                           {"round_df", 14}});
  }
  return noise_prior::parse(doc.dump(), "simulated prior");
}

// One comparison; the verdict of every row.
std::vector<verdict> simulate(const std::vector<sim_row>& rows, const noise_prior& prior, const scenario& s,
                              std::mt19937_64& rng) {
  std::normal_distribution<double> z(0.0, 1.0);
  auto truth = [&](std::size_t i) {
    return static_cast<int>(i) == s.planted_row ? sim_row{rows[i].id, s.planted_round_sd, s.planted_session_sd}
                                                : rows[i];
  };
  // A history: each earlier session stored as runs (usually one) whose value is its 3 rounds' median.
  std::vector<history_run> runs;
  std::vector<history_point> points;
  if (!s.interleaved)
    for (int h = 0; h < s.history_sessions; ++h) {
      std::vector<double> level(rows.size());
      for (std::size_t i = 0; i < rows.size(); ++i) level[i] = truth(i).session_sd * z(rng);
      for (int k = 0; k < s.history_runs_per_session; ++k) {
        history_run r;
        r.id = static_cast<std::int64_t>(runs.size()) + 1;
        r.gpu = "SIM";
        r.host = "sim";
        r.device_uuid = "GPU-sim";
        if (s.timed_history) {  // session h on day h, its runs side by side
          r.started_at = fmt::format("2026-01-{:02d}T02:00:{:02d}Z", h + 1, k);
          r.finished_at = fmt::format("2026-01-{:02d}T02:30:{:02d}Z", h + 1, k);
        }
        runs.push_back(r);
        for (std::size_t i = 0; i < rows.size(); ++i) {
          std::vector<double> rounds;
          for (int j = 0; j < 3; ++j) rounds.push_back(level[i] + truth(i).round_sd * z(rng));
          std::sort(rounds.begin(), rounds.end());
          history_point p;
          p.run_id = r.id;
          p.workload_id = rows[i].id;
          p.metric = "time_ms";
          p.value = 100 * std::exp(rounds[1]);
          points.push_back(p);
        }
      }
    }
  const noise_prior history = noise_prior::from_history(runs, points, "simulated history");
  result_file files[2];
  for (int side = 0; side < 2; ++side) {
    files[side] = test::make_file(side ? "B" : "A", {}, "SIM");
    files[side].rounds = s.rounds;
    if (s.interleaved) files[side].interleave = {{"session", "sim"}, {"side", side ? "B" : "A"}};
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const sim_row t = truth(i);
      double level = s.interleaved ? 0.0 : t.session_sd * z(rng);
      if (side == 1 && static_cast<int>(i) == s.planted_row) level += std::log1p(s.shift);
      std::vector<double> samples;
      std::vector<int> idx;
      for (int k = 0; k < s.rounds; ++k) {
        const double round_level = level + t.round_sd * z(rng);
        for (int rep = 0; rep < 3; ++rep) {
          samples.push_back(100 * std::exp(round_level + 1e-4 * z(rng)));
          idx.push_back(k);
        }
      }
      workload_result w = test::single_metric_workload(rows[i].id, "sim", "time_ms", "ms", better::lower, samples);
      w.metrics[0].second.rounds = idx;
      files[side].workloads.push_back(std::move(w));
    }
  }
  compare_options opt;
  opt.noise = {&prior, s.interleaved ? nullptr : &history};
  opt.threshold_pct = s.threshold_pct;
  const comparison c = compare_results({files[0], files[1]}, {"a", "b"}, opt);
  std::vector<verdict> out;
  for (const auto& r : c.rows) out.push_back(r.changes[0].outcome);
  return out;
}

double family_wise_rate(const scenario& s, int trials, std::uint64_t seed) {
  const auto rows = measured_rows();
  const noise_prior prior = round_prior(rows, s);
  std::mt19937_64 rng(seed);
  int alarms = 0;
  for (int t = 0; t < trials; ++t) {
    bool any = false;
    for (verdict v : simulate(rows, prior, s, rng)) any = any || v == verdict::improved || v == verdict::regressed;
    alarms += any;
  }
  return static_cast<double>(alarms) / trials;
}

// How often a planted slowdown on row 0 is called `regressed` (and how often any other row alarms).
double power(scenario s, double shift, int trials, std::uint64_t seed, int* other_alarms) {
  const auto rows = measured_rows();
  s.planted_row = 0;
  s.shift = shift;
  const noise_prior prior = round_prior(rows, s);
  std::mt19937_64 rng(seed);
  int found = 0;
  for (int t = 0; t < trials; ++t) {
    const auto v = simulate(rows, prior, s, rng);
    found += v[0] == verdict::regressed;
    for (std::size_t j = 1; j < v.size(); ++j) *other_alarms += v[j] == verdict::improved || v[j] == verdict::regressed;
  }
  return static_cast<double>(found) / trials;
}

}  // namespace

TEST(NoiseSimulation, FortyMeasuredRowsKeepTheFamilyWiseRateUnderAlpha) {
  ASSERT_EQ(measured_rows().size(), 40u);
  scenario nightly;  // 3 rounds vs a baseline from another session, 4 sessions of history
  const double night = family_wise_rate(nightly, 1000, 101);
  nightly.history_sessions = 2;  // a history of two sessions: df 1 for every row
  const double thin = family_wise_rate(nightly, 500, 102);
  scenario ab;
  ab.interleaved = true;
  ab.rounds = 5;
  const double inter = family_wise_rate(ab, 1000, 103);
  std::printf(
      "A/A family-wise false-alarm rate, 40 rows with the measured H200 noise: nightly (3 rounds vs a baseline, "
      "history of 4 sessions, 1000 trials) %.3f; history of 2 sessions (500 trials) %.3f; interleaved ab "
      "(5 rounds, 1000 trials) %.3f (alpha 0.05)\n",
      night, thin, inter);
  EXPECT_LE(night, 0.05);
  EXPECT_LE(thin, 0.05);
  EXPECT_LE(inter, 0.05);
}

TEST(NoiseSimulation, AnAbsTwoSidesInTheHistoryCountAsOneSession) {
  // A history of 4 sessions, each stored as the two sides of an A/A ab (8 runs). Taken as 8
  // sessions, the pairs' differences (round noise only) dilute the session noise and add df: the
  // verdicts trust a spread that is too small. Counted by overlapping times, they are 4 sessions.
  scenario merged;
  merged.history_runs_per_session = 2;
  const double rate = family_wise_rate(merged, 1000, 111);
  scenario apart = merged;
  apart.timed_history = false;
  const double naive = family_wise_rate(apart, 1000, 111);
  std::printf(
      "A/A family-wise false-alarm rate, nightly with a history of 4 sessions stored as ab pairs (8 runs, 1000 "
      "trials): %.3f counted as 4 sessions, %.3f counted as 8 (alpha 0.05)\n",
      rate, naive);
  EXPECT_LE(rate, 0.05);
  EXPECT_GT(naive, rate);
}

TEST(NoiseSimulation, PowerForTwoAndFourPercentGrowsWithTheHistory) {
  // The planted row: 0.1% round noise, 0.6% session noise (Llama-2-7B decode's measured level),
  // 3 rounds per side, among 39 other measured rows (Holm over 40).
  std::printf("power to call a planted slowdown `regressed` (row with 0.1%% round / 0.6%% session noise, 40 rows):\n");
  double four_by_history[3] = {};
  const int sessions[3] = {3, 10, 30};
  int others = 0, comparisons = 0;
  for (int h = 0; h < 3; ++h) {
    scenario s;
    s.history_sessions = sessions[h];
    const double p2 = power(s, 0.02, 200, 200 + h, &others);
    const double p4 = power(s, 0.04, 200, 300 + h, &others);
    comparisons += 400;
    four_by_history[h] = p4;
    std::printf("  nightly, 3 rounds vs a baseline, history of %2d sessions: 2%% -> %.2f, 4%% -> %.2f\n", sessions[h],
                p2, p4);
  }
  scenario ab;
  ab.interleaved = true;
  ab.rounds = 5;
  const double ab2 = power(ab, 0.02, 200, 400, &others);
  const double ab4 = power(ab, 0.04, 200, 401, &others);
  ab.threshold_pct = 1.0;
  const double ab2_t1 = power(ab, 0.02, 200, 402, &others);
  comparisons += 600;
  std::printf("  interleaved ab, 5 rounds: 2%% -> %.2f (threshold 1%%: %.2f), 4%% -> %.2f\n", ab2, ab2_t1, ab4);
  // Interleaved, the session noise cancels and a 4% change is always seen; a 2% one sits on the 2%
  // threshold (a change under it is `unchanged` by definition), so about half its estimates fall
  // below: power ~0.5, and ~1 with --threshold 1. Nightly, the session noise must be estimated:
  // power grows with the history's sessions (its df).
  EXPECT_GE(ab4, 0.95);
  EXPECT_GE(ab2_t1, 0.95);
  EXPECT_GT(ab2, 0.3);
  EXPECT_LT(ab2, 0.7);
  EXPECT_LT(four_by_history[0], four_by_history[1]);
  EXPECT_LT(four_by_history[1], four_by_history[2]);
  EXPECT_GE(four_by_history[2], 0.5);
  // No row that did not change is called changed more than rarely while one row did.
  EXPECT_LE(others, comparisons / 20);
}

TEST(NoiseSimulation, MinimumDetectableChangePerRowFromTheCommittedPrior) {
  // What each measured H200 row can see with the default protocols, at the committed prior's noise:
  // interleaved ab (5 rounds per side, session noise cancels) and nightly (3 rounds vs a baseline
  // from another session, session noise with its committed df). 43 rows Holm-corrected, 80% power.
  std::printf("minimum detectable change from configs/noise_prior.json (43 rows, 80%% power):\n");
  std::printf("  %-92s %8s %8s %9s\n", "row", "ab 5+5", "nightly", "sessions");
  double llama_ab = 0;
  for (const auto& r : noise_prior::committed().rows()) {
    if (!(r.metric == "time_ms" || r.metric == "decode_tokens_per_s" || r.metric == "images_per_s" ||
          r.metric == "step_ms") ||
        !r.round_sd || !r.session_sd || r.gpu != "NVIDIA H200")
      continue;
    round_test_options o;
    o.round_sd = std::max(*r.round_sd, 1e-4);
    o.prior_df = std::min(10, r.round_df);
    const double ab = minimum_detectable_pct(o, 5, 43, 0.8);
    o.session_sd = std::max(*r.session_sd, 1e-4);
    o.session_df = r.session_df;
    const double nightly = minimum_detectable_pct(o, 3, 43, 0.8);
    std::printf("  %-92s %7.2f%% %7.1f%% %9d\n", (r.id + " " + r.metric).c_str(), ab, nightly, r.sessions);
    EXPECT_GT(nightly, ab) << r.id;
    if (r.id.rfind("llm_decode/model=llama-2-7b", 0) == 0 && r.metric == "decode_tokens_per_s")
      llama_ab = std::max(llama_ab, ab);
  }
  EXPECT_GT(llama_ab, 0.0);
  EXPECT_LT(llama_ab, 1.0);  // issue 22's goal for Llama-2-7B decode in ab: <= 1%
}
