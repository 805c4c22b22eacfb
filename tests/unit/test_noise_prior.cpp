// The measured noise prior (noise_prior.hpp), its resolution per row (row_noise.hpp), the
// session-df-aware test (round_test.hpp) and each row's minimum detectable change in compare.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "compare_fixtures.hpp"
#include "cudabench/compare.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/noise_prior.hpp"
#include "cudabench/round_test.hpp"
#include "cudabench/row_noise.hpp"
#include "cudabench/student_t.hpp"

using namespace cudabench;

namespace {

const std::string llama =
    "llm_decode/model=llama-2-7b/weights=random/dtype=fp16/prompt_tokens=128/max_length=256/batch=1";

std::string message_of(const std::string& json) {
  try {
    noise_prior::parse(json, "p.json");
  } catch (const input_error& e) {
    return e.what();
  }
  return "";
}

history_run run(std::int64_t id, const std::string& gpu) {
  history_run r;
  r.id = id;
  r.gpu = gpu;
  return r;
}

history_point point(std::int64_t run_id, const std::string& id, const std::string& metric, double value,
                    status state = status::ok) {
  history_point p;
  p.run_id = run_id;
  p.workload_id = id;
  p.metric = metric;
  p.value = value;
  p.state = state;
  return p;
}

}  // namespace

TEST(NoisePrior, TheCommittedPriorIsTheMeasuredOne) {
  // configs/noise_prior.json as scripts/noise_prior.py generates it from results/h200 (8 sessions of
  // Llama-2-7B decode in 5 levels, issue 21 having changed its code four times: rounds agree to
  // 0.044%, sessions of one level to 0.72%, with df 8 - 5 = 3).
  const measured_noise* m = noise_prior::committed().find("NVIDIA H200", llama, "decode_tokens_per_s");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->sessions, 8);
  EXPECT_EQ(m->levels, 5);
  EXPECT_EQ(m->rounds, 36);
  EXPECT_EQ(m->round_df, 28);
  EXPECT_EQ(m->session_df, 3);
  EXPECT_DOUBLE_EQ(*m->round_sd, 0.0004448);
  EXPECT_DOUBLE_EQ(*m->session_sd, 0.007153);
  EXPECT_EQ(noise_prior::committed().find("NVIDIA A100", llama, "decode_tokens_per_s"), nullptr);
  EXPECT_EQ(noise_prior::committed().find("NVIDIA H200", llama, "no_such_metric"), nullptr);
}

TEST(NoisePrior, ACorruptPriorIsAClearError) {
  EXPECT_NE(message_of("{not json").find("p.json: not JSON"), std::string::npos);
  EXPECT_NE(message_of("[]").find("p.json: top level: not a noise prior file"), std::string::npos);
  EXPECT_NE(message_of(R"({"noise_prior_version": 2, "rows": []})").find("only version 1"), std::string::npos);
  EXPECT_NE(message_of(R"({"noise_prior_version": 1})").find("p.json: rows: missing"), std::string::npos);
  EXPECT_NE(message_of(R"({"noise_prior_version": 1, "rows": [{"id": "a", "metric": "m"}]})")
                .find("p.json: rows[0]: gpu must be a non-empty string"),
            std::string::npos);
  const std::string row = R"("gpu": "G", "id": "a", "metric": "m", "sessions": 3)";
  EXPECT_NE(message_of(R"({"noise_prior_version": 1, "rows": [{)" + row + R"(, "session_sd": -0.1, "session_df": 2}]})")
                .find("rows[0]: session_sd must be a non-negative number"),
            std::string::npos);
  EXPECT_NE(message_of(R"({"noise_prior_version": 1, "rows": [{)" + row + R"(, "session_sd": 0.1}]})")
                .find("session_sd and a positive session_df go together"),
            std::string::npos);
  EXPECT_NE(message_of(R"({"noise_prior_version": 1, "rows": [{)" + row + R"(, "session_sd": 0.1, "session_df": 5}]})")
                .find("session_df must be sessions - levels"),
            std::string::npos);
  // Three sessions in two levels (the row's code changed once): 1 df.
  EXPECT_NO_THROW(noise_prior::parse(R"({"noise_prior_version": 1, "rows": [{)" + row +
                                         R"(, "session_sd": 0.1, "session_df": 1, "levels": 2}]})",
                                     "p.json"));
  EXPECT_NE(message_of(R"({"noise_prior_version": 1, "rows": [{)" + row +
                       R"(, "session_sd": 0.1, "session_df": 2, "levels": 2}]})")
                .find("session_df must be sessions - levels"),
            std::string::npos);
  EXPECT_NE(message_of(R"({"noise_prior_version": 1, "rows": [{)" + row + R"(, "levels": 4}]})")
                .find("levels must be between 1 and sessions"),
            std::string::npos);
  EXPECT_NE(message_of(R"({"noise_prior_version": 1, "rows": [{)" + row + R"(, "round_level": "first"}]})")
                .find("rows[0]: round_level must be \"latest\" when present"),
            std::string::npos);
  EXPECT_NE(message_of(R"({"noise_prior_version": 1, "rows": [{)" + row + "}, {" + row + "}]}").find("appears twice"),
            std::string::npos);
  EXPECT_NE(message_of("{not json").find("regenerate it with scripts/noise_prior.py"), std::string::npos);
}

TEST(NoisePrior, HistoryRunsAreSessions) {
  // Three H200 runs of a row: its session sd is the sd of the logs of their values (df 2). A failed
  // point does not count; a row seen in one run only, or a run without a GPU, measures nothing.
  const auto h = noise_prior::from_history({run(1, "H"), run(2, "H"), run(3, "H"), run(4, "H"), run(5, "")},
                                           {point(1, "w", "ms", 100), point(2, "w", "ms", 102), point(3, "w", "ms", 99),
                                            point(4, "w", "ms", 500, status::oom), point(1, "once", "ms", 1),
                                            point(5, "w", "ms", 1000)},
                                           "h.sqlite");
  ASSERT_EQ(h.rows().size(), 1u);
  const measured_noise* m = h.find("H", "w", "ms");
  ASSERT_NE(m, nullptr);
  const double a = std::log(100.0), b = std::log(102.0), c = std::log(99.0), mean = (a + b + c) / 3;
  const double sd = std::sqrt(((a - mean) * (a - mean) + (b - mean) * (b - mean) + (c - mean) * (c - mean)) / 2);
  EXPECT_NEAR(*m->session_sd, sd, 1e-12);
  EXPECT_EQ(m->session_df, 2);
  EXPECT_EQ(m->sessions, 3);
  EXPECT_FALSE(m->round_sd.has_value());
  EXPECT_EQ(h.find("H", "once", "ms"), nullptr);
}

history_run timed_run(std::int64_t id, const std::string& host, const std::string& from, const std::string& to,
                      const std::string& card = "GPU-1") {
  history_run r = run(id, "H");
  r.host = host;
  r.device_uuid = card;
  r.started_at = from;
  r.finished_at = to;
  return r;
}

TEST(NoisePrior, HistoryRunsOfOneInterleavedSessionAreOneSession) {
  // Runs 1 and 2 are an ab's two sides (their times overlap on host "a", card GPU-1), run 3 chains
  // onto run 2's span, run 4 ran later on "a", run 5 at the same time on another host, run 6 has no
  // timestamps, run 7 ran at the same time on the host's other card, run 8 names no card.
  const std::vector<history_run> runs = {timed_run(1, "a", "2026-12-07T13:01:46Z", "2026-12-07T13:21:19Z"),
                                         timed_run(2, "a", "2026-12-07T13:03:13Z", "2026-12-07T13:22:40Z"),
                                         timed_run(3, "a", "2026-12-07T13:22:00Z", "2026-12-07T13:30:00Z"),
                                         timed_run(4, "a", "2026-12-07T13:30:00Z", "2026-12-07T13:40:00Z"),
                                         timed_run(5, "b", "2026-12-07T13:05:00Z", "2026-12-07T13:10:00Z"),
                                         timed_run(6, "a", "", ""),
                                         timed_run(7, "a", "2026-12-07T13:02:00Z", "2026-12-07T13:20:00Z", "GPU-2"),
                                         timed_run(8, "a", "2026-12-07T13:02:30Z", "2026-12-07T13:20:00Z", "")};
  std::vector<const history_run*> ptrs;
  for (const auto& r : runs) ptrs.push_back(&r);
  const auto session = noise_prior::history_sessions(ptrs);
  EXPECT_EQ(session.at(1), 1);
  EXPECT_EQ(session.at(2), 1);
  EXPECT_EQ(session.at(3), 1);
  EXPECT_EQ(session.at(4), 4);  // starts as run 3 ends: a later session
  EXPECT_EQ(session.at(5), 5);
  EXPECT_EQ(session.at(6), 6);
  EXPECT_EQ(session.at(7), 7);
  EXPECT_EQ(session.at(8), 8);

  // The row's sessions: {1, 2, 3} at the mean of their logs, 4, 5 and 6 (7 and 8 have no point of
  // it): four sessions, df 3.
  std::vector<history_point> points;
  const double value[] = {100, 104, 102, 101, 99, 103};
  for (std::int64_t id = 1; id <= 6; ++id) points.push_back(point(id, "w", "ms", value[id - 1]));
  const auto h = noise_prior::from_history(runs, points, "h.sqlite");
  EXPECT_EQ(h.runs_in_shared_sessions(), 2);
  const measured_noise* m = h.find("H", "w", "ms");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->sessions, 4);
  EXPECT_EQ(m->session_df, 3);
  const std::vector<double> v = {(std::log(100.0) + std::log(104.0) + std::log(102.0)) / 3, std::log(101.0),
                                 std::log(99.0), std::log(103.0)};
  const double mean = (v[0] + v[1] + v[2] + v[3]) / 4;
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  EXPECT_NEAR(*m->session_sd, std::sqrt(ss / 3), 1e-12);
}

TEST(NoisePrior, AHistoryRunThatIsACommittedFileIsNotASecondSession) {
  // Runs 2 and 3 are files the prior was measured from (same content SHA-256): their sessions are in
  // the prior already, so the history measures only runs 1, 4 and 5 (df 2, not 4).
  const std::string a(64, 'a'), b(64, 'b');
  const auto prior = noise_prior::parse(R"({"noise_prior_version": 1, "sessions": [{"label": "s", "files": ["x", "y"],
      "file_sha256": [")" + a + R"(", ")" + b +
                                            R"("]}], "rows": []})",
                                        "p.json");
  EXPECT_TRUE(prior.counts_file(a));
  EXPECT_FALSE(prior.counts_file(std::string(64, 'c')));
  std::vector<history_run> runs;
  for (std::int64_t id = 1; id <= 5; ++id) runs.push_back(run(id, "H"));
  runs[1].content_sha256 = a;
  runs[2].content_sha256 = b;
  runs[3].content_sha256 = std::string(64, 'c');
  std::vector<history_point> points;
  for (std::int64_t id = 1; id <= 5; ++id) points.push_back(point(id, "w", "ms", 100.0 + static_cast<double>(id)));
  const auto h = noise_prior::from_history(runs, points, "h.sqlite", &prior);
  EXPECT_EQ(h.runs_already_counted(), 2);
  const measured_noise* m = h.find("H", "w", "ms");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->sessions, 3);
  EXPECT_EQ(m->session_df, 2);
  // Without the prior every run counts.
  const auto all = noise_prior::from_history(runs, points, "h.sqlite");
  EXPECT_EQ(all.runs_already_counted(), 0);
  EXPECT_EQ(all.find("H", "w", "ms")->sessions, 5);
  // The committed prior knows its files: this session's H100 A/A among them.
  EXPECT_TRUE(noise_prior::committed().counts_file("cebddb96c3c4809dc821e1373277faebce669518b9e2208a1b813c065394eb5e"));
  // A malformed list is an error naming it.
  EXPECT_NE(message_of(R"({"noise_prior_version": 1, "sessions": [{"file_sha256": ["ABC"]}], "rows": []})")
                .find("p.json: sessions[0]: file_sha256 must hold SHA-256s in lowercase hex"),
            std::string::npos);
  EXPECT_NE(message_of(R"({"noise_prior_version": 1, "sessions": [{"file_sha256": "x"}], "rows": []})")
                .find("sessions[0]: file_sha256 must be an array"),
            std::string::npos);
  EXPECT_NE(
      message_of(R"({"noise_prior_version": 1, "sessions": {}, "rows": []})").find("p.json: sessions: not an array"),
      std::string::npos);
}

TEST(RowNoise, EvidenceFirstThenTheFallbackTable) {
  const nlohmann::ordered_json no_params = nlohmann::ordered_json::object();
  // Committed: the measured numbers, with their df.
  noise_model n =
      row_noise(default_noise_evidence(), "NVIDIA H200", llama, "llm_decode", "decode_tokens_per_s", no_params);
  EXPECT_EQ(n.session_source, "committed");
  EXPECT_EQ(n.round_source, "committed");
  EXPECT_DOUBLE_EQ(n.session_sd, 0.007153);
  EXPECT_DOUBLE_EQ(n.session_df, 3);
  EXPECT_DOUBLE_EQ(n.round_sd, 0.0004448);
  EXPECT_DOUBLE_EQ(n.round_df, 28);
  // The H100's Llama-2-7B 2048 rows: the 0.5% tie margin (a new level) took their rounds' spread
  // from 1.09% to 0.05%, and the F test in scripts/noise_prior.py saw it: the latest level alone.
  const std::string llama_2048 =
      "llm_decode/model=llama-2-7b/weights=random/dtype=fp16/prompt_tokens=2048/max_length=2304/batch=1";
  const measured_noise* m = noise_prior::committed().find("NVIDIA H100 80GB HBM3", llama_2048, "decode_tokens_per_s");
  ASSERT_NE(m, nullptr);
  EXPECT_TRUE(m->round_latest_level);
  n = row_noise(default_noise_evidence(), "NVIDIA H100 80GB HBM3", llama_2048, "llm_decode", "decode_tokens_per_s",
                no_params);
  EXPECT_EQ(n.round_source, "committed, latest level");
  EXPECT_DOUBLE_EQ(n.round_sd, 0.0004395);
  EXPECT_DOUBLE_EQ(n.round_df, 46);
  EXPECT_FALSE(noise_prior::committed().find("NVIDIA H200", llama, "decode_tokens_per_s")->round_latest_level);
  // Another GPU model: nothing measured, the kind's table, session sd taken as known (df 0).
  n = row_noise(default_noise_evidence(), "NVIDIA A100", llama, "llm_decode", "decode_tokens_per_s", no_params);
  EXPECT_EQ(n.session_source, "fallback");
  EXPECT_EQ(n.round_source, "fallback");
  EXPECT_DOUBLE_EQ(n.session_sd, 0.008);
  EXPECT_DOUBLE_EQ(n.round_sd, 0.001);
  EXPECT_DOUBLE_EQ(n.session_df, 0);
  // History and committed pooled: df add up, variances weighted by df.
  const auto h = noise_prior::from_history({run(1, "NVIDIA H200"), run(2, "NVIDIA H200"), run(3, "NVIDIA H200")},
                                           {point(1, llama, "decode_tokens_per_s", 245),
                                            point(2, llama, "decode_tokens_per_s", 246),
                                            point(3, llama, "decode_tokens_per_s", 244)},
                                           "h");
  const double hs = *h.find("NVIDIA H200", llama, "decode_tokens_per_s")->session_sd;
  n = row_noise({&noise_prior::committed(), &h}, "NVIDIA H200", llama, "llm_decode", "decode_tokens_per_s", no_params);
  EXPECT_EQ(n.session_source, "history+committed");
  EXPECT_DOUBLE_EQ(n.session_df, 5);
  EXPECT_EQ(n.sessions, 11);
  EXPECT_NEAR(n.session_sd, std::sqrt((2 * hs * hs + 3 * 0.007153 * 0.007153) / 5), 1e-12);
  // History alone (no committed prior): its own numbers; a row it lacks falls back, said so.
  n = row_noise({nullptr, &h}, "NVIDIA H200", llama, "llm_decode", "decode_tokens_per_s", no_params);
  EXPECT_EQ(n.session_source, "history");
  EXPECT_DOUBLE_EQ(n.session_df, 2);
  n = row_noise({nullptr, &h}, "NVIDIA H200", "other", "train_step", "step_ms", no_params);
  EXPECT_EQ(n.session_source, "fallback");
  EXPECT_DOUBLE_EQ(n.session_sd, 0.027);
  // Under a measured zero lies the timer's resolution, not the kind's worst noise.
  const auto exact = noise_prior::parse(
      R"({"noise_prior_version": 1, "rows": [{"gpu": "G", "id": "w", "metric": "m", "sessions": 3,
          "round_sd": 0, "round_df": 8, "session_sd": 0, "session_df": 2}]})",
      "p");
  n = row_noise({&exact, nullptr}, "G", "w", "train_step", "m", no_params);
  EXPECT_DOUBLE_EQ(n.round_sd, resolution_sd);
  EXPECT_DOUBLE_EQ(n.session_sd, resolution_sd);
}

TEST(RoundTest, AnEstimatedSessionNoiseWidensTheTestByItsDf) {
  // One round per side 4% apart, session sd 1% known vs estimated from 2 sessions (df 1) and from 30.
  round_test_options o;
  o.round_sd = 0.001;
  o.prior_df = 10;
  o.session_sd = 0.01;
  const auto known = between_round_test({100}, {104}, o);
  o.session_df = 1;
  const auto two = between_round_test({100}, {104}, o);
  o.session_df = 29;
  const auto thirty = between_round_test({100}, {104}, o);
  EXPECT_DOUBLE_EQ(known.se, two.se);  // same variance, fewer df
  // The conservative df: min(round df 10, session df).
  EXPECT_DOUBLE_EQ(two.df, 1);
  EXPECT_DOUBLE_EQ(thirty.df, 10);
  EXPECT_GT(known.df, 1e5);
  EXPECT_LT(known.p_value, thirty.p_value);
  EXPECT_LT(thirty.p_value, two.p_value);
  EXPECT_GT(two.p_value, 0.2);  // 4% against a session noise from two sessions: no evidence
  EXPECT_LT(thirty.p_value, 0.05);
  // detectable_pct: (t_{1 - alpha/2m} + t_power) * se, as a % change.
  const double se = 0.01, df = 20;
  const double want = std::expm1((student_t_quantile(1 - 0.05 / 80, df) + student_t_quantile(0.8, df)) * se) * 100;
  EXPECT_NEAR(detectable_pct(se, df, 0.05, 40, 0.8, true), want, 1e-9);  // df 20: rounded to itself
  const double want_odd =
      std::expm1((student_t_quantile(1 - 0.05 / 80, 20.37) + student_t_quantile(0.8, 20.37)) * se) * 100;
  EXPECT_NEAR(detectable_pct(se, 20.37, 0.05, 40, 0.8, true), want_odd, 1e-3 * want_odd);  // df rounded to 20.4
  EXPECT_THROW(detectable_pct(se, df, 0.05, 0, 0.8, true), std::invalid_argument);
}

TEST(CompareMde, EveryTestedRowSaysWhatItCouldSee) {
  using test::rounds_workload;
  // Interleaved, 5 rounds each, rounds 0.1% apart: a small mde; 1 round each: far larger (the
  // fallback prior alone, few df). A deterministic row has none (judged by the threshold).
  const std::vector<double> quiet = {1.000, 1.001, 0.999, 1.0005, 0.9995};
  auto w = [](const char* id, std::vector<double> v) {
    return rounds_workload(id, "train_step", "step_ms", "ms", better::lower, std::move(v));
  };
  const auto det = test::single_metric_workload("mem", "transformer_memory", "peak_memory_mb", "MiB", better::lower,
                                                {100, 100, 100});
  const auto c = compare_results(
      {test::session_file("A", {w("q", quiet), det}), test::session_file("B", {w("q", quiet), det})}, {"a", "b"}, {});
  ASSERT_EQ(c.rows.size(), 2u);
  ASSERT_TRUE(c.rows[0].changes[0].mde_pct.has_value());
  const double five_rounds = *c.rows[0].changes[0].mde_pct;
  EXPECT_GT(five_rounds, 0.05);
  EXPECT_LT(five_rounds, 1.5);
  EXPECT_FALSE(c.rows[1].changes[0].mde_pct.has_value());
  EXPECT_EQ(c.power, 0.8);
  const auto one = compare_results(
      {test::session_file("A", {w("q", {1.0})}, 1), test::session_file("B", {w("q", {1.0})}, 1)}, {"a", "b"}, {});
  EXPECT_GT(*one.rows[0].changes[0].mde_pct, five_rounds * 2);
  // Higher power asks for a larger change.
  compare_options strict;
  strict.power = 0.95;
  const auto c95 = compare_results({test::session_file("A", {w("q", quiet)}), test::session_file("B", {w("q", quiet)})},
                                   {"a", "b"}, strict);
  EXPECT_GT(*c95.rows[0].changes[0].mde_pct,
            *compare_results({test::session_file("A", {w("q", quiet)}), test::session_file("B", {w("q", quiet)})},
                             {"a", "b"}, {})
                 .rows[0]
                 .changes[0]
                 .mde_pct);
  EXPECT_NE(c.noise_summary.find("fallback 2"), std::string::npos) << c.noise_summary;
}
