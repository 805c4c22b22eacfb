// The parameters one workload kind accepts: names, types, ranges, defaults, allowed values.
// Pure data, host-only: the suite parser validates against it, `list`/`validate` and the docs
// print it, and the registry (src/gpu/registry.cpp) pairs it with the class that runs the kind.
#pragma once
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace cudabench {

enum class param_type {
  integer,  // JSON integer
  number,   // JSON number
  string,   // JSON string, optionally restricted to `choices`
  boolean,  // JSON true/false
  bytes,    // integer byte count or a string such as "512MiB", "1GiB", "4GB"; stored as integer
};

struct param_def {
  std::string name;
  param_type type = param_type::integer;
  std::string help;
  nlohmann::json default_value = nullptr;  // null: no default
  bool required = false;                   // must be given (ignored when a default exists)
  std::vector<std::string> choices;        // allowed values for strings; empty = any
  double min = -std::numeric_limits<double>::infinity();  // inclusive bounds for numbers
  double max = std::numeric_limits<double>::infinity();
  bool in_id = true;  // part of the workload id (ids are `kind/key=value/...` in this order)
};

struct kind_schema {
  std::string kind;
  std::string description;
  std::vector<param_def> params;  // declaration order is the id key order
  const param_def* find(const std::string& name) const {
    for (const auto& p : params)
      if (p.name == name) return &p;
    return nullptr;
  }
};

// A parameter with the fields every schema sets; callers add choices, ranges, required, in_id.
inline param_def make_param(std::string name, param_type type, std::string help,
                            nlohmann::json default_value = nullptr) {
  param_def p;
  p.name = std::move(name);
  p.type = type;
  p.help = std::move(help);
  p.default_value = std::move(default_value);
  return p;
}

// Kind name -> schema. The CLI fills it from the registry; unit tests build their own.
using kind_catalog = std::vector<kind_schema>;

}  // namespace cudabench
