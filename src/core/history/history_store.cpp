// See history_store.hpp and docs/history.md. Schema 2:
//   runs(id, content_sha256 UNIQUE, started_at, ..., device_uuid,
//        identity UNIQUE(started_at, host, suite_sha256, label))
//   points(run_id -> runs.id, workload_id, metric, ..., value, PRIMARY KEY(run_id, workload_id, metric))
// A later schema bumps history_schema_version and migrates here (schema 1 -> 2: ALTER TABLE adds
// device_uuid); a database from a newer cudabench is refused rather than guessed at.
#include "cudabench/history_store.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <sqlite3.h>

#include "core/io/sha256.hpp"
#include "cudabench/compare.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/round_test.hpp"
#include "cudabench/stats.hpp"

namespace cudabench {

namespace {

constexpr int application_id = 0x43424853;  // "CBHS": cudabench history store

constexpr const char* schema_sql = R"SQL(
CREATE TABLE runs(
  id INTEGER PRIMARY KEY,
  content_sha256 TEXT NOT NULL UNIQUE,
  started_at TEXT NOT NULL, finished_at TEXT NOT NULL,
  label TEXT NOT NULL, git_commit TEXT NOT NULL, toolkit TEXT NOT NULL, cuda_runtime TEXT NOT NULL,
  driver TEXT NOT NULL, cublas TEXT NOT NULL, cudnn TEXT NOT NULL, gpu TEXT NOT NULL, host TEXT NOT NULL,
  suite TEXT NOT NULL, suite_sha256 TEXT NOT NULL, rounds INTEGER NOT NULL, source TEXT NOT NULL,
  added_at TEXT NOT NULL, device_uuid TEXT NOT NULL DEFAULT '',
  UNIQUE(started_at, host, suite_sha256, label));
CREATE TABLE points(
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  workload_id TEXT NOT NULL, kind TEXT NOT NULL, metric TEXT NOT NULL, name TEXT NOT NULL, unit TEXT NOT NULL,
  better TEXT NOT NULL, headline INTEGER NOT NULL, status TEXT NOT NULL, value REAL,
  rounds INTEGER NOT NULL, throttled INTEGER NOT NULL, sm_mhz REAL, power_w REAL,
  PRIMARY KEY(run_id, workload_id, metric));
CREATE INDEX points_by_workload ON points(workload_id, metric);
)SQL";

// A prepared statement that finalizes itself.
class statement {
 public:
  statement(sqlite3* db, const char* sql, const std::string& path) : db_(db), path_(path) {
    if (sqlite3_prepare_v2(db, sql, -1, &st_, nullptr) != SQLITE_OK) fail();
  }
  ~statement() { sqlite3_finalize(st_); }
  statement(const statement&) = delete;
  statement& operator=(const statement&) = delete;

  statement& bind(int i, const std::string& s) {
    sqlite3_bind_text(st_, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
    return *this;
  }
  statement& bind(int i, std::int64_t v) {
    sqlite3_bind_int64(st_, i, v);
    return *this;
  }
  statement& bind(int i, std::optional<double> v) {
    if (v) sqlite3_bind_double(st_, i, *v);
    else sqlite3_bind_null(st_, i);
    return *this;
  }
  void reset() {
    sqlite3_reset(st_);
    sqlite3_clear_bindings(st_);
  }
  bool step() {  // true: a row is ready
    const int rc = sqlite3_step(st_);
    if (rc == SQLITE_ROW) return true;
    if (rc != SQLITE_DONE) fail();
    return false;
  }
  std::string text(int col) const {
    const auto* p = sqlite3_column_text(st_, col);
    return p ? std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(st_, col)))
             : "";
  }
  std::int64_t integer(int col) const { return sqlite3_column_int64(st_, col); }
  std::optional<double> real(int col) const {
    if (sqlite3_column_type(st_, col) == SQLITE_NULL) return std::nullopt;
    return sqlite3_column_double(st_, col);
  }

 private:
  [[noreturn]] void fail() const {
    throw input_error(fmt::format("{}: history database error: {}", path_, sqlite3_errmsg(db_)));
  }
  sqlite3* db_;
  sqlite3_stmt* st_ = nullptr;
  const std::string& path_;
};

void exec(sqlite3* db, const char* sql, const std::string& path) {
  char* err = nullptr;
  if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
    const std::string msg = err ? err : sqlite3_errmsg(db);
    sqlite3_free(err);
    throw input_error(fmt::format("{}: history database error: {}", path, msg));
  }
}

std::int64_t pragma_int(sqlite3* db, const char* name, const std::string& path) {
  statement st(db, fmt::format("PRAGMA {}", name).c_str(), path);
  return st.step() ? st.integer(0) : 0;
}

// A rollback unless committed, so a failed add leaves the database as it was.
class transaction {
 public:
  transaction(sqlite3* db, const std::string& path) : db_(db), path_(path) { exec(db, "BEGIN IMMEDIATE", path); }
  ~transaction() {
    if (!done_) sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
  }
  void commit() {
    exec(db_, "COMMIT", path_);
    done_ = true;
  }

 private:
  sqlite3* db_;
  const std::string& path_;
  bool done_ = false;
};

using oj = nlohmann::ordered_json;

std::string get(const oj& obj, std::initializer_list<const char*> keys) {
  const oj* cur = &obj;
  for (const char* k : keys) {
    if (!cur->is_object()) return "";
    auto it = cur->find(k);
    if (it == cur->end()) return "";
    cur = &*it;
  }
  if (cur->is_null()) return "";
  return cur->is_string() ? cur->get<std::string>() : cur->dump();
}

std::optional<double> median_or_none(const std::vector<double>& v) {
  if (v.empty()) return std::nullopt;
  return median(v);
}

}  // namespace

history_store::history_store(const std::string& path, bool create) : path_(path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!create && !fs::exists(path, ec))
    throw input_error(fmt::format("{}: no history database here (`cudabench history add` creates one)", path));
  if (fs::exists(path, ec) && !fs::is_regular_file(path, ec))
    throw input_error(fmt::format("{}: not a file, so not a history database", path));
  const int flags = create ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
  if (sqlite3_open_v2(path.c_str(), &db_, flags, nullptr) != SQLITE_OK) {
    const std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    throw input_error(fmt::format("{}: cannot open the history database: {}", path, msg));
  }
  try {
    sqlite3_busy_timeout(db_, 10000);  // a concurrent writer (two nightly jobs) waits, not fails
    std::int64_t app = 0, version = 0;
    try {
      app = pragma_int(db_, "application_id", path);
      version = pragma_int(db_, "user_version", path);
    } catch (const input_error& e) {
      throw input_error(
          fmt::format("{}: not a cudabench history database (not SQLite: {})", path, sqlite3_errmsg(db_)));
    }
    if (app == 0 && version == 0) {
      statement count(db_, "SELECT count(*) FROM sqlite_master", path);
      const std::int64_t objects = count.step() ? count.integer(0) : 0;
      if (objects != 0)
        throw input_error(
            fmt::format("{}: an SQLite database that is not a cudabench history (no cudabench "
                        "application id); refusing to change it",
                        path));
      // An empty file is an empty SQLite database: read as a history it would fail later with
      // SQLite's "no such table", which names neither the file's problem nor the remedy.
      if (!create)
        throw input_error(fmt::format(
            "{}: an empty file or database, not a cudabench history (`cudabench history add` creates one)", path));
      if (create) {
        transaction t(db_, path);
        exec(db_, schema_sql, path);
        exec(db_,
             fmt::format("PRAGMA application_id = {}; PRAGMA user_version = {};", application_id,
                         history_schema_version)
                 .c_str(),
             path);
        t.commit();
      }
    } else if (app != application_id) {
      throw input_error(
          fmt::format("{}: an SQLite database of another application (application_id {:#x}); not a "
                      "cudabench history",
                      path, app));
    } else if (version > history_schema_version) {
      throw input_error(
          fmt::format("{}: history schema version {} is newer than this cudabench reads ({}); use a "
                      "newer cudabench",
                      path, version, history_schema_version));
    } else if (version < 1) {
      throw input_error(fmt::format("{}: damaged cudabench history (schema version {})", path, version));
    } else if (version == 1 && create) {
      // Schema 1 -> 2: runs learn their card; the runs stored before keep an empty one.
      transaction t(db_, path);
      exec(db_,
           fmt::format("ALTER TABLE runs ADD COLUMN device_uuid TEXT NOT NULL DEFAULT ''; PRAGMA user_version = {};",
                       history_schema_version)
               .c_str(),
           path);
      t.commit();
    } else if (version < history_schema_version) {
      version_ = static_cast<int>(version);  // read as it is: a read-only open changes nothing
    }
    exec(db_, "PRAGMA foreign_keys = ON", path);
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw;
  }
}

history_store::~history_store() { sqlite3_close(db_); }

int history_store::schema_version() const { return version_; }

history_add_result history_store::add_file(const std::string& path) { return add(read_history_input(path)); }

history_add_result history_store::add_bytes(std::string_view bytes, const std::string& source) {
  return add(history_input_from_bytes(bytes, source));
}

history_add_result history_store::add(const history_input& in) {
  const result_file& r = in.result;
  const std::string& sha = in.sha256;
  const std::string& source = in.source;
  history_add_result out;
  const std::string host = get(r.environment, {"hostname"});
  const std::string suite_sha = get(r.suite, {"sha256"});
  transaction t(db_, path_);
  {
    statement same(db_, "SELECT id FROM runs WHERE content_sha256 = ?1", path_);
    same.bind(1, sha);
    if (same.step()) {
      out.run_id = same.integer(0);
      return out;  // this very file is stored already: idempotent
    }
  }
  {
    // The same run re-written (a --rounds file is rewritten after every round): the newer file
    // replaces it, under the same run id.
    statement same(db_, "SELECT id FROM runs WHERE started_at = ?1 AND host = ?2 AND suite_sha256 = ?3 AND label = ?4",
                   path_);
    same.bind(1, r.started_at).bind(2, host).bind(3, suite_sha).bind(4, r.label());
    if (same.step()) {
      out.run_id = same.integer(0);
      out.replaced = true;
    }
  }
  {
    statement ins(
        db_,
        out.replaced ? "UPDATE runs SET content_sha256=?1, started_at=?2, finished_at=?3, label=?4, git_commit=?5, "
                       "toolkit=?6, cuda_runtime=?7, driver=?8, cublas=?9, cudnn=?10, gpu=?11, host=?12, suite=?13, "
                       "suite_sha256=?14, rounds=?15, source=?16, added_at=?17, device_uuid=?18 WHERE id=?19"
                     : "INSERT INTO runs(content_sha256, started_at, finished_at, label, git_commit, toolkit, "
                       "cuda_runtime, driver, cublas, cudnn, gpu, host, suite, suite_sha256, rounds, source, added_at, "
                       "device_uuid) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17,?18)",
        path_);
    ins.bind(1, sha).bind(2, r.started_at).bind(3, r.finished_at).bind(4, r.label());
    ins.bind(5, get(r.tool, {"git_commit"})).bind(6, get(r.build, {"cuda_toolkit"}));
    ins.bind(7, get(r.environment, {"cuda_runtime"})).bind(8, get(r.environment, {"driver_version"}));
    ins.bind(9, get(r.environment, {"cublas"})).bind(10, get(r.environment, {"cudnn"}));
    ins.bind(11, get(r.environment, {"device", "name"})).bind(12, host).bind(13, get(r.suite, {"name"}));
    ins.bind(14, suite_sha).bind(15, static_cast<std::int64_t>(r.rounds)).bind(16, source).bind(17, utc_now_iso8601());
    ins.bind(18, get(r.environment, {"device", "uuid"}));
    if (out.replaced) ins.bind(19, out.run_id);
    ins.step();
    if (!out.replaced) out.run_id = sqlite3_last_insert_rowid(db_);
  }
  if (out.replaced) {
    statement del(db_, "DELETE FROM points WHERE run_id = ?1", path_);
    del.bind(1, out.run_id);
    del.step();
  }
  statement pt(
      db_,
      "INSERT OR REPLACE INTO points(run_id, workload_id, kind, metric, name, unit, better, headline, "
      "status, value, rounds, throttled, sm_mhz, power_w) VALUES(?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14)",
      path_);
  for (const auto& w : r.workloads) {
    std::vector<std::string> units;
    for (const auto& [n, m] : w.metrics) units.push_back(m.unit);
    const bool throttled = w.clocks.throttled || !w.clocks.throttle_reasons.empty();
    auto put = [&](const std::string& metric_name, const metric* m, bool headline) {
      std::optional<double> value;
      int rounds = 1;
      if (m && w.state == status::ok && !m->samples.empty()) {
        const auto per_round = round_medians(m->samples, m->rounds);
        value = median(per_round);
        rounds = static_cast<int>(per_round.size());
      }
      pt.bind(1, out.run_id).bind(2, w.id).bind(3, w.kind).bind(4, metric_name);
      pt.bind(5, readable_name(w.id, w.kind, w.params, metric_name, m ? m->unit : "", units));
      pt.bind(6, m ? m->unit : std::string())
          .bind(7, std::string(m && m->direction == better::higher ? "higher" : "lower"));
      pt.bind(8, static_cast<std::int64_t>(headline)).bind(9, std::string(to_string(w.state))).bind(10, value);
      pt.bind(11, static_cast<std::int64_t>(rounds)).bind(12, static_cast<std::int64_t>(throttled));
      pt.bind(13, median_or_none(w.clocks.sm_mhz)).bind(14, median_or_none(w.clocks.power_w));
      pt.step();
      pt.reset();
      ++out.points;
    };
    if (w.metrics.empty()) put("", nullptr, true);  // a failed workload with nothing measured: its status
    for (std::size_t i = 0; i < w.metrics.size(); ++i) put(w.metrics[i].first, &w.metrics[i].second, i == 0);
  }
  t.commit();
  out.added = true;
  return out;
}

std::vector<history_run> history_store::runs() const {
  const std::string sql = fmt::format(
      "SELECT r.id, content_sha256, started_at, finished_at, label, git_commit, toolkit, cuda_runtime, "
      "driver, cublas, cudnn, gpu, host, suite, suite_sha256, source, added_at, r.rounds, "
      "(SELECT count(*) FROM points p WHERE p.run_id = r.id), {} FROM runs r ORDER BY started_at, r.id",
      version_ >= 2 ? "device_uuid" : "''");
  statement st(db_, sql.c_str(), path_);
  std::vector<history_run> out;
  while (st.step()) {
    history_run r;
    r.id = st.integer(0);
    std::string* fields[] = {&r.content_sha256, &r.started_at,   &r.finished_at, &r.label,   &r.git_commit, &r.toolkit,
                             &r.cuda_runtime,   &r.driver,       &r.cublas,      &r.cudnn,   &r.gpu,        &r.host,
                             &r.suite,          &r.suite_sha256, &r.source,      &r.added_at};
    for (int i = 0; i < 16; ++i) *fields[i] = st.text(i + 1);
    r.rounds = static_cast<int>(st.integer(17));
    r.workloads = static_cast<int>(st.integer(18));
    r.device_uuid = st.text(19);
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<history_point> history_store::points(const std::function<bool(const std::string&)>& filter) const {
  statement st(db_,
               "SELECT p.run_id, workload_id, kind, metric, name, unit, better, headline, status, value, "
               "p.rounds, throttled, sm_mhz, power_w FROM points p JOIN runs r ON r.id = p.run_id "
               "ORDER BY r.started_at, r.id, p.rowid",
               path_);
  std::vector<history_point> out;
  while (st.step()) {
    history_point p;
    p.workload_id = st.text(1);
    if (filter && !filter(p.workload_id)) continue;
    p.run_id = st.integer(0);
    p.kind = st.text(2);
    p.metric = st.text(3);
    p.name = st.text(4);
    p.unit = st.text(5);
    p.direction = st.text(6) == "higher" ? better::higher : better::lower;
    p.headline = st.integer(7) != 0;
    p.state = status_from_string(st.text(8));
    p.value = st.real(9);
    p.rounds = static_cast<int>(st.integer(10));
    p.throttled = st.integer(11) != 0;
    p.sm_mhz = st.real(12);
    p.power_w = st.real(13);
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace cudabench
