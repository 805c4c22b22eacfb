// One workload kind's host-only half: everything about a kind that `list`, `validate`, compare,
// reports, fleets and the history need, with no GPU and no CUDA headers. Each kind describes
// itself in one file (src/kinds/<kind>.cpp); src/kinds/catalog.cpp lists them all, once. The GPU
// library adds only the factory that runs a kind (src/workloads/registry.cpp), and tests check the
// two lists name the same kinds.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cudabench/kind_schema.hpp"
#include "cudabench/noise_floor.hpp"
#include "cudabench/row_names.hpp"

namespace cudabench {

// What compare assumes of a row of this kind that no measurement knows (noise_floor.hpp).
using noise_fallback = noise_model (*)(const std::string& metric, const nlohmann::ordered_json& params);

struct kind_description {
  kind_schema schema;              // parameters and rules: the suite parser, validate, list --kinds
  kind_row_name row_name;          // how compare, reports, fleets and the history name its rows
  noise_fallback noise = nullptr;  // null: noise_model's cautious default
};

// Every built-in kind, in the order `list --kinds` prints them (src/kinds/catalog.cpp).
const std::vector<kind_description>& kind_descriptions();
const kind_description* find_kind_description(const std::string& kind);  // null: not a built-in kind
// The built-in kinds' schemas: what the CLI parses and validates suites against.
kind_catalog builtin_kinds();

}  // namespace cudabench
