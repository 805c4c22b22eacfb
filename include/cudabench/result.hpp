// The result file (schema_version 1.x): in-memory model, JSON read/write, atomic save.
// Format: docs/design.md "Result format"; schema: configs/schema/result.schema.json. Host-only.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace cudabench {

inline constexpr const char* result_schema_version = "1.0";

enum class status { ok, failed_validation, oom, error, unsupported, skipped };
const char* to_string(status s);
status status_from_string(const std::string& s);  // throws input_error

enum class better { lower, higher };

struct metric {
  std::string unit;
  better direction = better::lower;
  std::vector<double> samples;  // one per repetition (single-shot metrics: one)
  // The round (fresh process) each sample came from, parallel to `samples` ("rounds" in the file;
  // written only for files with more than one round). Empty: every sample is from round 0.
  std::vector<int> rounds;
  double median = 0, mean = 0, stddev = 0, min = 0, max = 0;
};
// Builds a metric and fills its summary from `samples` (stats.hpp).
metric make_metric(std::string unit, better direction, std::vector<double> samples);

struct validation_record {
  bool passed = false;
  double max_rel_error = 0;
  double tolerance = 0;
};

struct clock_record {
  std::vector<double> sm_mhz;                 // one per repetition, read right after it; empty if unavailable
  std::vector<double> power_w;                // board power per repetition, read with sm_mhz; empty if unavailable
  std::vector<std::string> throttle_reasons;  // union over repetitions, NVML names
  bool throttled = false;                     // a repetition saw its SM clock drop or a slowdown reason
  // Why the workload has no `energy_j` metric though NVML was available (energy_metrics.hpp: too
  // short a repetition for the counter, no counter, cold L2); "" otherwise.
  std::string energy_absent;
};

struct workload_result {
  std::string id;
  std::string kind;
  nlohmann::ordered_json params = nlohmann::ordered_json::object();
  status state = status::ok;
  std::string message;
  std::optional<validation_record> validation;
  std::vector<std::pair<std::string, metric>> metrics;  // in the workload's order
  clock_record clocks;
  std::optional<std::uint64_t> peak_memory_bytes;    // "memory": {"peak_bytes": ...}
  std::optional<std::uint64_t> oom_requested_bytes;  // "memory": {"oom_requested_bytes": ...}
  // What the workload's setup-time tuners chose ({"algorithm": ..., "gemv": ...}); empty object when
  // it has none. `run --tuning-from FILE` replays it. With several rounds: round 0's choices, and
  // `tuning_by_round` holds every round's when they differ.
  nlohmann::ordered_json tuning = nlohmann::ordered_json::object();
  nlohmann::ordered_json tuning_by_round = nlohmann::ordered_json::array();

  const metric* find_metric(const std::string& name) const;
};

struct result_file {
  std::string schema_version = result_schema_version;
  nlohmann::ordered_json tool = nlohmann::ordered_json::object();
  nlohmann::ordered_json build = nlohmann::ordered_json::object();
  nlohmann::ordered_json environment = nlohmann::ordered_json::object();  // has "label"
  nlohmann::ordered_json suite = nlohmann::ordered_json::object();
  nlohmann::ordered_json settings = nlohmann::ordered_json::object();
  std::string started_at, finished_at;  // ISO 8601 UTC
  // How many rounds (fresh processes) the samples come from; 1 for a plain run. `round_log` has one
  // entry per round ({"round", "started_at", "finished_at", "exit_code"}), empty for a plain run.
  int rounds = 1;
  nlohmann::ordered_json round_log = nlohmann::ordered_json::array();
  // Set by `cudabench ab` on every side's file: {"session": id shared by the sides, "side": this
  // side's label, "sides": [labels], "schedule": "ABBA..."}; empty object otherwise.
  nlohmann::ordered_json interleave = nlohmann::ordered_json::object();
  std::vector<workload_result> workloads;

  std::string label() const;  // environment.label, or "unlabelled"
};

nlohmann::ordered_json to_json(const result_file& r);
// Strict: wrong types, missing required fields, another major schema version -> input_error
// naming `source` and the JSON path.
result_file result_from_json(const nlohmann::json& j, const std::string& source);
// Same, keeping the file's key order (metric order matters: the first metric is the headline).
// read_result_file parses with this overload.
result_file result_from_json(const nlohmann::ordered_json& j, const std::string& source);
// The one checked reader of result files: input_error naming the file (and the JSON path) when it
// is missing, not a regular file (FIFO, device, directory), empty or past max_result_file_bytes
// (input_file.hpp), malformed, nested past 64 levels, holds a number beyond a double (1e400), a
// sample impossible for its unit (sample_rules.hpp), or is a fleet or comparison (file_kind.hpp).
result_file read_result_file(const std::string& path);
// Atomic, and never onto one of `inputs` (atomic_write.hpp): readers never see a half-written file.
void write_result_file(const result_file& r, const std::string& path, const std::vector<std::string>& inputs = {});

std::string utc_now_iso8601();

}  // namespace cudabench
