// Suite files: load, validate strictly, expand sweep axes, assign stable ids. Host-only.
// Format: docs/design.md "Suite format"; schema: configs/schema/suite.schema.json.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cudabench/kind_schema.hpp"

namespace cudabench {

struct run_settings {
  int repetitions = 5;
  int warmup = 2;
  double min_time_ms = 25.0;
  // Warm-up also lasts at least this much GPU time: a microsecond kernel's two warm-up runs leave
  // the clocks where idle left them, and the first repetitions then measure the ramp (command
  // line only; recorded in the result's settings).
  double warmup_ms = 100.0;
};

// One expanded workload: every parameter resolved (defaults filled in), no arrays left.
struct workload_spec {
  std::string id;  // `kind/key=value/...`, stable across runs and files
  std::string kind;
  nlohmann::ordered_json params;  // in schema order; includes defaults

  // Typed accessors; throw input_error naming the id and key if missing or of another type.
  std::int64_t get_int(const std::string& key) const;
  double get_number(const std::string& key) const;
  std::string get_string(const std::string& key) const;
  bool get_bool(const std::string& key) const;
  bool has(const std::string& key) const;
};

// What a suite may ask for (README "Limits"). A sweep is a Cartesian product, so a few short
// arrays in a 1 KB file can name 10^10 workloads; the count is checked before anything is built.
inline constexpr std::uint64_t default_max_workloads = 100000;
struct suite_limits {
  std::uint64_t max_workloads = default_max_workloads;  // after expansion, over all entries
};

// The ranges of `defaults` (the same as the --reps, --warmup and --min-time-ms options').
inline constexpr int max_repetitions = 1000;
inline constexpr int max_warmup = 1000;
inline constexpr double max_min_time_ms = 1e6;

struct suite {
  std::string name;
  std::string description;
  std::string source;  // path it was read from
  std::string sha256;  // of the file's bytes
  run_settings defaults;
  std::vector<workload_spec> workloads;
};

// `name_or_path`: an existing file path, or NAME looked up as NAME.json in `search_dirs` in order.
// Throws input_error (file, JSON path, what was expected) on any problem; nothing is returned
// partially.
suite load_suite(const std::string& name_or_path, const kind_catalog& kinds,
                 const std::vector<std::string>& search_dirs, const suite_limits& limits = {});

// Parse from text already read; `source` is used in messages.
suite parse_suite(const std::string& text, const std::string& source, const kind_catalog& kinds,
                  const suite_limits& limits = {});

// The JSON forms shared by the result file (`suite`, `settings`), `cudabench list --format json`
// and `cudabench run --dry-run --format json`, so the three spell a suite alike.
// {"name", "source", "sha256"}: which suite, and which bytes of it.
nlohmann::ordered_json suite_identity_json(const suite& s);
// {"repetitions", "warmup", "min_time_ms"}: what a suite file's "defaults" may set.
nlohmann::ordered_json suite_defaults_json(const run_settings& r);
// Those and "warmup_ms" (command line only): the settings a run uses.
nlohmann::ordered_json to_json(const run_settings& r);
// {"id", "kind", "params"}, and an array of them in order.
nlohmann::ordered_json to_json(const workload_spec& w);
nlohmann::ordered_json to_json(const std::vector<workload_spec>& workloads);

// "1GiB", "512MiB", "4GB", "1024" -> bytes. Throws input_error with `context` on bad input.
std::uint64_t parse_byte_size(const std::string& text, const std::string& context);

}  // namespace cudabench
