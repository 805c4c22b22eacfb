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
  std::string id;                 // `kind/key=value/...`, stable across runs and files
  std::string kind;
  nlohmann::ordered_json params;  // in schema order; includes defaults

  // Typed accessors; throw input_error naming the id and key if missing or of another type.
  std::int64_t get_int(const std::string& key) const;
  double get_number(const std::string& key) const;
  std::string get_string(const std::string& key) const;
  bool get_bool(const std::string& key) const;
  bool has(const std::string& key) const;
};

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
                 const std::vector<std::string>& search_dirs);

// Parse from text already read; `source` is used in messages.
suite parse_suite(const std::string& text, const std::string& source, const kind_catalog& kinds);

// `*` and `?` glob against ids; an empty pattern matches everything. Several patterns may be
// comma-separated; a workload is kept if any matches.
bool id_matches(const std::string& id, const std::string& patterns);

// "1GiB", "512MiB", "4GB", "1024" -> bytes. Throws input_error with `context` on bad input.
std::uint64_t parse_byte_size(const std::string& text, const std::string& context);

}  // namespace cudabench
