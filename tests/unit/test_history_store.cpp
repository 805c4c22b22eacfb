// The history database (history_store.hpp): schema version, idempotent adds, what is stored per
// run and workload, and refusal (input_error naming the file, nothing changed) of bad result files
// and of databases that are not a cudabench history.
#include <filesystem>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sqlite3.h>

#include "cudabench/errors.hpp"
#include "cudabench/history.hpp"
#include "cudabench/history_store.hpp"
#include "history_fixtures.hpp"
#include "test_support.hpp"

using namespace cudabench;

namespace {

std::string fresh(const std::string& name) {
  const std::string p = test::temp_path(name);
  std::filesystem::remove(p);
  return p;
}

void sql(const std::string& db, const std::string& statements) {
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(h, statements.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(h);
  sqlite3_close(h);
}

// The message of the input_error that `f` throws ("" if none).
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const input_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(HistoryStore, NewDatabaseHasTheSchemaVersion) {
  const std::string db = fresh("h_schema.sqlite");
  {
    history_store s(db, true);
    EXPECT_EQ(s.schema_version(), history_schema_version);
    EXPECT_EQ(history_schema_version, 2);
    EXPECT_TRUE(s.runs().empty());
  }
  const history_store again(db, false);  // reopens read-only
  EXPECT_EQ(again.schema_version(), 2);
}

TEST(HistoryStore, ASchemaOneHistoryIsReadAsItIsAndMigratedWhenWritten) {
  // A history written by a cudabench before runs had their card (schema 1): read-only it stays
  // schema 1 and its runs name no card; opened to add a run, it becomes schema 2, its old run keeps
  // an empty card and the new one stores the file's device UUID.
  const std::string db = fresh("h_v1.sqlite"), night = fresh("h_v1_night.json");
  sql(db,
      "CREATE TABLE runs(id INTEGER PRIMARY KEY, content_sha256 TEXT NOT NULL UNIQUE, started_at TEXT NOT NULL, "
      "finished_at TEXT NOT NULL, label TEXT NOT NULL, git_commit TEXT NOT NULL, toolkit TEXT NOT NULL, "
      "cuda_runtime TEXT NOT NULL, driver TEXT NOT NULL, cublas TEXT NOT NULL, cudnn TEXT NOT NULL, gpu TEXT NOT NULL, "
      "host TEXT NOT NULL, suite TEXT NOT NULL, suite_sha256 TEXT NOT NULL, rounds INTEGER NOT NULL, source TEXT NOT "
      "NULL, added_at TEXT NOT NULL, UNIQUE(started_at, host, suite_sha256, label));"
      "CREATE TABLE points(run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE, workload_id TEXT NOT NULL, "
      "kind TEXT NOT NULL, metric TEXT NOT NULL, name TEXT NOT NULL, unit TEXT NOT NULL, better TEXT NOT NULL, "
      "headline INTEGER NOT NULL, status TEXT NOT NULL, value REAL, rounds INTEGER NOT NULL, throttled INTEGER NOT "
      "NULL, sm_mhz REAL, power_w REAL, PRIMARY KEY(run_id, workload_id, metric));"
      "INSERT INTO runs VALUES(1, 'aa', '2026-01-01T00:00:00Z', '2026-01-01T00:10:00Z', 'old', 'c', '12.4', '12.4', "
      "'550', '12', '9', 'NVIDIA H200', 'vm', 'full', 'ss', 1, 'old.json', '2026-01-01T00:11:00Z');"
      "PRAGMA application_id = 1128417363; PRAGMA user_version = 1;");
  for (int twice = 0; twice < 2; ++twice) {  // the read-only open changes nothing
    const history_store read(db, false);
    EXPECT_EQ(read.schema_version(), 1);
    const auto runs = read.runs();
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].label, "old");
    EXPECT_EQ(runs[0].device_uuid, "");
  }
  test::write_night(night, 0, "new", 1.0);
  auto j = nlohmann::json::parse(test::read_text(night));
  j["environment"]["device"]["uuid"] = "GPU-abc";
  test::write_text(night, j.dump());
  history_store s(db, true);
  EXPECT_EQ(s.schema_version(), 2);
  ASSERT_TRUE(s.add_file(night).added);
  const auto runs = s.runs();
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].device_uuid, "");
  EXPECT_EQ(runs[1].device_uuid, "GPU-abc");
}

TEST(HistoryStore, AddingTheSameFileTwiceIsIdempotent) {
  const std::string db = fresh("h_idem.sqlite"), night = fresh("h_idem_night.json");
  test::write_night(night, 0, "aaaa", 1.0);
  history_store s(db, true);
  const auto first = s.add_file(night);
  EXPECT_TRUE(first.added);
  EXPECT_EQ(first.points, 12u);  // 6 workloads, 12 metrics
  const auto second = s.add_file(night);
  EXPECT_FALSE(second.added);
  EXPECT_EQ(second.run_id, first.run_id);
  ASSERT_EQ(s.runs().size(), 1u);
  EXPECT_EQ(s.points().size(), 12u);
  // The same run written again with more data (other bytes, same start/host/suite/label) replaces it.
  test::write_night(night, 0, "aaaa", 1.0, 0.001);
  const auto third = s.add_file(night);
  EXPECT_TRUE(third.added);
  EXPECT_TRUE(third.replaced);
  EXPECT_EQ(third.run_id, first.run_id);
  EXPECT_EQ(s.runs().size(), 1u);
  EXPECT_EQ(s.points().size(), 12u);
}

TEST(HistoryStore, StoresTheRunAndTheMedianOfRoundMedians) {
  const std::string db = fresh("h_values.sqlite"), f = fresh("h_values.json");
  auto j = nlohmann::ordered_json::parse(test::read_text(test::data_path("results/cu121.json")));
  // Rounds 0,0,1,1,2,2 with samples 1,3 | 2,2 | 10,10: round medians 2, 2, 10 -> 2 (the plain
  // median of the samples would be 2.5).
  auto& m = j["workloads"][0]["metrics"]["time_ms"];
  m["samples"] = {1.0, 3.0, 2.0, 2.0, 10.0, 10.0};
  m["rounds"] = {0, 0, 1, 1, 2, 2};
  j["workloads"][4]["status"] = "oom";
  j["workloads"][4]["message"] = "cudaMalloc failed";
  test::write_text(f, j.dump());
  history_store s(db, true);
  s.add_file(f);
  const auto runs = s.runs();
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].started_at, "2026-12-02T12:00:00Z");
  EXPECT_EQ(runs[0].label, "CUDA 12.1");
  EXPECT_EQ(runs[0].git_commit, "0123456789ab");
  EXPECT_EQ(runs[0].toolkit, "12.1.105");
  EXPECT_EQ(runs[0].driver, "580.159.04");
  EXPECT_EQ(runs[0].gpu, "NVIDIA H200");
  EXPECT_EQ(runs[0].rounds, 5);
  bool seen_time = false, seen_oom = false;
  for (const auto& p : s.points()) {
    if (p.workload_id == "matmul/dtype=fp16/m=4096/n=4096/k=4096" && p.metric == "time_ms") {
      seen_time = true;
      ASSERT_TRUE(p.value);
      EXPECT_DOUBLE_EQ(*p.value, 2.0);
      EXPECT_EQ(p.rounds, 3);
      EXPECT_TRUE(p.headline);
      EXPECT_EQ(p.name, "matmul fp16 4096³ (ms)");
    }
    if (p.workload_id.rfind("transformer_memory", 0) == 0 && p.headline) {
      seen_oom = true;
      EXPECT_EQ(p.state, status::oom);
      EXPECT_FALSE(p.value);
    }
  }
  EXPECT_TRUE(seen_time);
  EXPECT_TRUE(seen_oom);
}

TEST(HistoryStore, BadAndForeignResultFilesAreRejectedNamingTheFile) {
  const std::string db = fresh("h_bad.sqlite");
  history_store s(db, true);
  const std::string good = fresh("h_bad_good.json");
  test::write_night(good, 0, "aaaa", 1.0);
  s.add_file(good);
  const std::string not_json = fresh("h_bad_text.json");
  test::write_text(not_json, "this is not json");
  for (const std::string& bad :
       {test::data_path("results/malformed.json"), test::data_path("results/schema_v2.json"),
        test::data_path("results/bad_sample_type.json"), std::string(CUDABENCH_CONFIG_DIR) + "/quick.json",
        test::data_path("expected/compare_2way.json"), not_json, test::temp_path("does_not_exist.json")}) {
    const std::string msg = error_of([&] { s.add_file(bad); });
    EXPECT_NE(msg.find(bad), std::string::npos) << bad << ": " << msg;
  }
  EXPECT_EQ(s.runs().size(), 1u);  // nothing half-added
  EXPECT_EQ(s.points().size(), 12u);
}

TEST(HistoryStore, ForeignOrNewerDatabasesAreRefusedAndLeftAlone) {
  const std::string text = fresh("h_foreign.txt");
  test::write_text(text, "not a database at all, but long enough to have a header..........................");
  EXPECT_NE(error_of([&] { history_store(text, true); }).find("not a cudabench history database"), std::string::npos);
  EXPECT_EQ(test::read_text(text).substr(0, 14), "not a database");

  const std::string other = fresh("h_other.sqlite");
  sql(other, "CREATE TABLE mine(x); INSERT INTO mine VALUES(1);");
  EXPECT_NE(error_of([&] { history_store(other, true); }).find("not a cudabench history"), std::string::npos);
  sql(other, "PRAGMA application_id = 1234;");
  EXPECT_NE(error_of([&] { history_store(other, true); }).find("another application"), std::string::npos);

  const std::string newer = fresh("h_newer.sqlite");
  { history_store s(newer, true); }
  sql(newer, "PRAGMA user_version = 3;");
  EXPECT_NE(error_of([&] { history_store(newer, false); }).find("newer than this cudabench reads (2)"),
            std::string::npos);

  // An empty file opens as an empty SQLite database: reading it says so, and it stays empty.
  const std::string empty = fresh("h_empty.sqlite");
  test::write_text(empty, "");
  EXPECT_NE(error_of([&] {
              history_store(empty, false);
            }).find(empty + ": an empty file or database, not a cudabench history"),
            std::string::npos);
  EXPECT_EQ(std::filesystem::file_size(empty), 0u);

  const std::string missing = fresh("h_missing.sqlite");
  EXPECT_NE(error_of([&] { history_store(missing, false); }).find("no history database here"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(missing));
}

TEST(History, SeriesStepsAndWhatChanged) {
  // Twenty nights; from night 12 on every time is 7% slower, and the commit changed there.
  const std::string db = fresh("h_series.sqlite");
  history_store s(db, true);
  for (int n = 0; n < 20; ++n) {
    const std::string f = fresh("h_series_" + std::to_string(n) + ".json");
    const double wobble = ((n * 37) % 7 - 3) * 0.001;  // +-0.3%, deterministic
    test::write_night(f, n, n < 12 ? "abc1111" : "def2222", n < 12 ? 1.0 : 1.07, wobble);
    s.add_file(f);
  }
  history_options opt;
  const history_view h = build_history(s, opt);
  ASSERT_EQ(h.runs.size(), 20u);
  ASSERT_EQ(h.series.size(), 6u);  // one per workload: the headline metric
  for (const auto& series : h.series) {
    ASSERT_EQ(series.steps.size(), 1u) << series.name;
    const auto& st = series.steps[0];
    EXPECT_EQ(st.run, 12u);
    EXPECT_EQ(st.previous, 11u);
    EXPECT_TRUE(st.worse) << series.name;
    EXPECT_NEAR(std::abs(st.where.change_pct), std::abs(series.direction == better::lower ? 7.0 : 100 / 1.07 - 100),
                0.5);
  }
  const std::string text = describe_step(h, h.series[0], h.series[0].steps[0]);
  EXPECT_EQ(
      text,
      "matmul fp16 4096³ (ms) stepped +7.0% (worse) at 2026-11-13T02:30:00Z (run 13; commit abc1111 \u2192 def2222)")
      << text;
  // The newest run (night 19) brought no new step: it was found before it.
  EXPECT_TRUE(steps_new_at_newest_run(h).empty());
  // A metric can be chosen; an unknown one is an input_error.
  opt.metrics = {"tflops"};
  EXPECT_EQ(build_history(s, opt).series.size(), 2u);
  opt.metrics = {"nonsense"};
  EXPECT_THROW(build_history(s, opt), input_error);
}
