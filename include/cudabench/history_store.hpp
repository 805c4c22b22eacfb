// The run history: result files stored in an SQLite database (the system library), so a nightly
// job can ask "how has this metric moved over the last months?". Per run it keeps who/what/where
// (time, label, git commit, toolkit, driver, cuBLAS, cuDNN, GPU, host, suite) and per workload and
// metric one value: the median of the per-round medians (the run's level, robust to one odd
// round), with its status, throttling and clocks. Schema versioned with PRAGMA user_version and
// marked with PRAGMA application_id, so a foreign or newer database is refused, never altered.
// Adding a file is idempotent (keyed by the SHA-256 of its bytes); a file of a run already stored
// (same started_at + host + suite sha256 + label, other bytes: a --rounds file rewritten after
// more rounds) replaces that run under its id. docs/history.md. Host-only.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cudabench/result.hpp"

struct sqlite3;

namespace cudabench {

// 2 added runs.device_uuid (the card a run measured; schema 1 files gain it, empty, when opened to write).
inline constexpr int history_schema_version = 2;
inline constexpr const char* default_history_db = "cudabench-history.sqlite";

struct history_run {
  std::int64_t id = 0;
  std::string content_sha256, started_at, finished_at, label, git_commit, toolkit, cuda_runtime, driver, cublas, cudnn,
      gpu, host, suite, suite_sha256, source, added_at;
  std::string device_uuid;  // "" where the file or a schema 1 history did not record it
  int rounds = 1;
  int workloads = 0;  // points stored for it (workload x metric)
};

// One workload's metric in one run.
struct history_point {
  std::int64_t run_id = 0;
  std::string workload_id, kind, metric, name, unit;  // metric "" for a failed workload that has none
  better direction = better::lower;
  bool headline = false;  // the workload's first metric
  status state = status::ok;
  std::optional<double> value;  // median of per-round medians; none unless ok
  int rounds = 1;
  bool throttled = false;
  std::optional<double> sm_mhz, power_w;  // medians over the repetitions, when recorded
};

struct history_add_result {
  bool added = false;     // false: this very file was already stored; nothing changed
  bool replaced = false;  // added, in place of an earlier file of the same run
  std::int64_t run_id = 0;
  std::size_t points = 0;
};

// A result file read for the history, before any database is opened (so a bad file never leaves
// an empty database behind): every check of read_result_file (result.hpp; a regular file, size,
// depth, number range, sample rules, not a fleet or comparison), a started_at to place it in time,
// at least one workload, and the SHA-256 of its bytes (the same file stored twice is one run).
// Defined in history_input.cpp.
struct history_input {
  result_file result;
  std::string sha256;
  std::string source;  // the path, in messages and in the database
};
history_input read_history_input(const std::string& path);
// The same from a file's bytes already in memory.
history_input history_input_from_bytes(std::string_view bytes, const std::string& source);

class history_store {
 public:
  // Opens `path`. create: a missing file becomes a new, empty history; otherwise a missing file is
  // an input_error. A file that is not SQLite, not a cudabench history, or of a newer schema is an
  // input_error naming it (exit 2); nothing in it is changed.
  history_store(const std::string& path, bool create);
  ~history_store();
  history_store(const history_store&) = delete;
  history_store& operator=(const history_store&) = delete;

  // Reads and stores a result file. A file that cannot be read or is not a valid result file is an
  // input_error naming it, and the database is unchanged.
  history_add_result add_file(const std::string& path);
  // The same from the file's bytes; `source` names it in messages and in the database.
  history_add_result add_bytes(std::string_view bytes, const std::string& source);
  // Stores a file read (and checked) by read_history_input.
  history_add_result add(const history_input& in);

  std::vector<history_run> runs() const;  // oldest first (started_at, then id)
  // Points of the workloads `filter` accepts (empty: all), in run order.
  std::vector<history_point> points(const std::function<bool(const std::string&)>& filter = {}) const;
  int schema_version() const;
  const std::string& path() const { return path_; }

 private:
  sqlite3* db_ = nullptr;
  std::string path_;
  int version_ = history_schema_version;  // a schema 1 file opened read-only stays 1
};

}  // namespace cudabench
