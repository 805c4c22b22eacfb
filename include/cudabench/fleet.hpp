// A fleet result: the same suite run on many GPUs (every GPU of a host through
// `run --devices`, many hosts through `fleet collect`), each GPU's whole result kept, and per
// workload the fleet median, the spread and the outlier GPUs (fleet_outliers.hpp). The file format
// (format "cudabench-fleet", schema_version 1.x) is configs/schema/fleet.schema.json and
// docs/fleet.md. Host-only; unit-tested in tests/unit/test_fleet.cpp.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "cudabench/fleet_outliers.hpp"
#include "cudabench/result.hpp"

namespace cudabench {

inline constexpr const char* fleet_schema_version = "1.0";
inline constexpr const char* fleet_format = "cudabench-fleet";

struct fleet_gpu {
  std::string host;                   // the name the run gave its host (Slurm node name or host name)
  int index = 0;                      // the CUDA device index on that host, as its process saw it
  std::string file;                   // the per-GPU result file it came from (base name), "" if none
  int exit_code = 0;                  // of the process that measured it
  std::string note;                   // why there is no result (or what went wrong)
  std::optional<result_file> result;  // none: that process left no readable result
  std::string name() const;           // "node01 GPU 3"
};

// One GPU's value of a workload's headline metric.
struct fleet_value {
  std::size_t gpu = 0;  // into fleet_file::gpus
  status state = status::ok;
  std::string message;
  std::optional<double> value;    // the median of its round medians; set when ok
  std::optional<double> sm_mhz;   // median SM clock over its repetitions, when recorded
  std::optional<double> power_w;  // median board power, when recorded
  std::vector<std::string> throttle_reasons;
  outlier_verdict verdict;  // filled for ok values when the workload was judged
};

struct fleet_workload {
  std::string id, kind, metric, unit;
  nlohmann::ordered_json params = nlohmann::ordered_json::object();
  better direction = better::lower;
  std::string name;                    // readable, as in compare tables
  std::vector<fleet_value> values;     // every GPU that has the workload, in gpus order
  outlier_analysis analysis;           // over the ok values (per_value parallel to the ok ones)
  std::optional<double> fleet_sm_mhz;  // median over GPUs of their median SM clock
  std::size_t ok_count() const;
};

struct fleet_outlier {
  std::size_t gpu = 0, workload = 0;  // into gpus / workloads
  bool worse = false;                 // in the metric's bad direction (slower, more memory)
  std::string line;                   // one readable sentence, with clocks and power limit
};

// A GPU flagged on at least one workload.
struct fleet_outlier_gpu {
  std::size_t gpu = 0;
  int flagged = 0, judged = 0;  // workloads it is an outlier on / workloads judged with it
  std::string line;
};

// A property (GPU model, driver, power limit, max clock, label, ...) that differs across GPUs.
struct fleet_difference {
  std::string field;
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;  // value -> GPU names
};

struct fleet_file {
  std::string schema_version = fleet_schema_version;
  nlohmann::ordered_json tool = nlohmann::ordered_json::object();
  std::string created_at;
  std::string label;  // the column header in comparisons
  nlohmann::ordered_json suite = nlohmann::ordered_json::object();
  // From `ab --devices`: {"session": id, "side": "A"}, shared by the sides' fleets (every GPU ran
  // the sides interleaved, so compare treats them as one session). Empty otherwise.
  nlohmann::ordered_json interleave = nlohmann::ordered_json::object();
  outlier_rule rule;
  std::vector<fleet_gpu> gpus;  // sorted by host, then index
  // Derived by make_fleet (written to the file for readers; recomputed when a file is read):
  std::vector<fleet_workload> workloads;
  std::vector<fleet_outlier> outliers;
  std::vector<fleet_outlier_gpu> outlier_gpus;
  std::vector<fleet_difference> differences;
  std::vector<std::string> notes;  // GPUs without a result, GPUs another process was using

  std::size_t ok_gpus() const;
};

// Sorts the GPUs, checks them (at least one with a result; no host/index twice; one suite) and
// computes the per-workload summary, outliers, differences and notes. `label` "" = the first
// GPU's environment.label. Throws input_error.
fleet_file make_fleet(std::vector<fleet_gpu> gpus, const outlier_rule& rule, const std::string& label = "");

nlohmann::ordered_json to_json(const fleet_file& f);
// Whether a parsed JSON document is a fleet file (rather than a result file).
bool is_fleet_json(const nlohmann::ordered_json& j);
// Reads the header and the GPUs (with their embedded results) and recomputes the rest with the
// file's outlier rule. Strict like result files: input_error naming `source` and the JSON path.
fleet_file fleet_from_json(const nlohmann::ordered_json& j, const std::string& source);
// Through the checked reader (checked_json.hpp): a regular file within the result-file size limit,
// nesting and number range checked.
fleet_file read_fleet_file(const std::string& path);
// Atomic and never onto one of `inputs` (atomic_write.hpp), like result files.
void write_fleet_file(const fleet_file& f, const std::string& path, const std::vector<std::string>& inputs = {});

}  // namespace cudabench
