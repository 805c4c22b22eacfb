// The parameters one workload kind accepts: names, types, ranges, defaults, allowed values.
// Pure data, host-only: the suite parser validates against it, `list`/`validate` and the docs
// print it. Each built-in kind's schema is part of its description (kind_description.hpp).
#pragma once
#include <cstdint>
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

// "integer", "number", "string", "boolean", "bytes": how `list`, `validate` and the docs name a type.
const char* type_name(param_type t);

struct param_def {
  std::string name;
  param_type type = param_type::integer;
  std::string help;
  nlohmann::json default_value = nullptr;                 // null: no default
  bool required = false;                                  // must be given (ignored when a default exists)
  std::vector<std::string> choices;                       // allowed values for strings; empty = any
  double min = -std::numeric_limits<double>::infinity();  // inclusive bounds for numbers
  double max = std::numeric_limits<double>::infinity();
  bool in_id = true;  // part of the workload id (ids are `kind/key=value/...` in this order)
};

// A rule a value check cannot express: between two parameters, or about what a parameter names
// on disk. Rules are data, like the parameters: the host-only suite parser checks them for every
// expanded workload (src/core/suite/kind_rules.cpp), so `validate`, `list` and `run --dry-run`
// refuse what `run` would, without a GPU; `list --kinds` prints them (describe_rule, kind_rules.hpp).
enum class rule_type {
  multiple_of,           // integer `param` is a multiple of `n`
  at_least_plus,         // integer `param` >= integer `other` + `n`
  keyword_or_file,       // `param` is one of `keywords` or names an existing regular file
  keyword_or_directory,  // `param` is one of `keywords` or names a directory holding one of `files`
  within_model_context,  // integer `param` <= max_position_embeddings of the LLM `other` names
  one_of,                // `param` (absent: its default) is one of `keywords`; checked even when absent, so
                         // with when_param it says "this option needs that setting" (backward needs mode train)
};

// What a named file must also be, beyond existing.
enum class file_format {
  any,
  safetensors,  // a file: its header parses; a directory: model.safetensors or the sharded index, every shard's header
  llm_config,   // a directory's config.json describes a Llama-family decoder (llm_config.hpp)
};

struct kind_rule {
  rule_type type = rule_type::multiple_of;
  std::string param;
  std::string other;                  // at_least_plus, within_model_context
  std::int64_t n = 0;                 // multiple_of, at_least_plus
  std::vector<std::string> keywords;  // keyword_or_*: values that name no file; one_of: the allowed values
  std::vector<std::string> files;     // keyword_or_directory: the directory holds at least one
  file_format format = file_format::any;
  std::string when_param, when_value;  // the rule applies only where params[when_param] == when_value
  std::string why;                     // appended to the error: why the rule exists
};

struct kind_schema {
  std::string kind;
  std::string description;
  std::vector<param_def> params;  // declaration order is the id key order
  std::vector<kind_rule> rules;   // checked in order, after the values
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

// Kind name -> schema. The CLI's is builtin_kinds() (kind_description.hpp); tests add kinds of their own.
using kind_catalog = std::vector<kind_schema>;

}  // namespace cudabench
