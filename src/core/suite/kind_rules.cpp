// See kind_rules.hpp. Messages say what the rule wants and what the workload has, after the
// entry's JSON path and the parameter, and name the workload id (a sweep entry expands to many).
#include "cudabench/kind_rules.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cudabench/errors.hpp"
#include "cudabench/llm_config.hpp"
#include "cudabench/safetensors.hpp"
#include "suite_values.hpp"

namespace cudabench {
namespace {

namespace fs = std::filesystem;

std::string or_list(const std::vector<std::string>& v) {
  if (v.size() <= 1) return v.empty() ? "" : v[0];
  std::string s;
  for (std::size_t i = 0; i + 1 < v.size(); ++i) s += (i ? ", " : "") + v[i];
  return s + " or " + v.back();
}

bool is_keyword(const kind_rule& r, const std::string& v) {
  for (const auto& k : r.keywords)
    if (k == v) return true;
  return false;
}

std::string keyword_phrase(const kind_rule& r) {
  if (r.keywords.empty()) return "";
  return (r.keywords.size() == 1 ? r.keywords[0] : "one of " + fmt::format("{}", fmt::join(r.keywords, ", "))) + " or ";
}

bool applies(const kind_rule& r, const workload_spec& spec) {
  if (r.when_param.empty()) return true;
  const auto it = spec.params.find(r.when_param);
  return it != spec.params.end() && detail::id_value(*it) == r.when_value;
}

// What stat says a path is, for messages.
std::string what_is(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "does not exist";
  if (S_ISDIR(st.st_mode)) return "is a directory";
  if (S_ISREG(st.st_mode)) return "is a file";
  return "is not a regular file";
}

}  // namespace

std::optional<std::string> rule_checker::file_problem(const kind_rule& r, const std::string& path) {
  const auto key = std::make_pair(&r, path);
  const auto cached = files_.find(key);
  if (cached != files_.end()) return cached->second;
  std::optional<std::string> problem;
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    problem = fmt::format("\"{}\" {}", path, what_is(path));
  } else if (r.format == file_format::safetensors) {
    try {
      safetensors_file::open(path);
    } catch (const input_error& e) {
      problem = e.what();
    }
  }
  return files_[key] = problem;
}

std::optional<std::string> rule_checker::directory_problem(const kind_rule& r, const std::string& path) {
  const auto key = std::make_pair(&r, path);
  const auto cached = directories_.find(key);
  if (cached != directories_.end()) return cached->second;
  std::optional<std::string> problem;
  std::error_code ec;
  if (!fs::is_directory(path, ec)) {
    problem = fmt::format("\"{}\" {}", path, what_is(path));
  } else {
    bool holds = r.files.empty();
    for (const auto& f : r.files) holds = holds || fs::exists(fs::path(path) / f, ec);
    if (!holds) problem = fmt::format("the directory \"{}\" holds no {}", path, or_list(r.files));
  }
  if (!problem) {
    try {
      if (r.format == file_format::safetensors) checkpoint::open(path);
      if (r.format == file_format::llm_config) load_llm_config(path);
    } catch (const input_error& e) {
      problem = e.what();
    } catch (const unsupported_error&) {
      // `run` records the workload as unsupported rather than refusing the suite.
    }
  }
  return directories_[key] = problem;
}

void rule_checker::check(const kind_schema& schema, const workload_spec& spec, const std::string& source,
                         const std::string& entry_path) {
  for (const kind_rule& r : schema.rules) {
    if (!applies(r, spec) || (!spec.has(r.param) && r.type != rule_type::one_of)) continue;
    const auto broken = [&](const std::string& what) {
      detail::fail(source, entry_path + "." + r.param,
                   fmt::format("{}{} (workload {})", what, r.why.empty() ? "" : "; " + r.why, spec.id));
    };
    const std::string when = r.when_param.empty() ? "" : fmt::format("with {} {}, ", r.when_param, r.when_value);
    switch (r.type) {
      case rule_type::one_of: {
        std::string v;  // as the row id spells it; absent: the schema's default, else nothing
        if (const auto it = spec.params.find(r.param); it != spec.params.end()) v = detail::id_value(*it);
        else if (const param_def* d = schema.find(r.param); d && !d->default_value.is_null())
          v = detail::id_value(nlohmann::ordered_json(d->default_value));
        if (std::find(r.keywords.begin(), r.keywords.end(), v) == r.keywords.end())
          broken(v.empty() ? fmt::format("{}{} is not set; it must be {}", when, r.param, or_list(r.keywords))
                           : fmt::format("{}{} is {}; it must be {}", when, r.param, v, or_list(r.keywords)));
        break;
      }
      case rule_type::multiple_of: {
        const std::int64_t v = spec.get_int(r.param);
        if (r.n != 0 && v % r.n != 0) broken(fmt::format("{}{} is not a multiple of {}", when, v, r.n));
        break;
      }
      case rule_type::at_least_plus: {
        if (!spec.has(r.other)) break;
        const std::int64_t v = spec.get_int(r.param), o = spec.get_int(r.other);
        if (v < o + r.n) broken(fmt::format("{}{} must be at least {} + {} = {}", when, v, r.other, r.n, o + r.n));
        break;
      }
      case rule_type::keyword_or_file: {
        const std::string v = spec.get_string(r.param);
        if (is_keyword(r, v)) break;
        if (const auto p = file_problem(r, v))
          broken(fmt::format("{}expected {}a file{}: {}", when, keyword_phrase(r),
                             r.format == file_format::safetensors ? " in safetensors format" : "", *p));
        break;
      }
      case rule_type::keyword_or_directory: {
        const std::string v = spec.get_string(r.param);
        if (is_keyword(r, v)) break;
        if (const auto p = directory_problem(r, v))
          broken(fmt::format("{}expected {}a directory holding {}: {}", when, keyword_phrase(r), or_list(r.files), *p));
        break;
      }
      case rule_type::within_model_context: {
        if (!spec.has(r.other)) break;
        const std::string model = spec.get_string(r.other);
        auto it = context_.find(model);
        if (it == context_.end()) {
          std::optional<int> positions;
          try {
            positions = load_llm_config(model).max_position_embeddings;
          } catch (const std::exception&) {
            // An unreadable model is its own rule's error (keyword_or_directory); nothing to compare.
          }
          it = context_.emplace(model, positions).first;
        }
        const std::int64_t v = spec.get_int(r.param);
        if (it->second && v > *it->second)
          broken(fmt::format("{}{} exceeds the model's max_position_embeddings {} ({})", when, v, *it->second, model));
        break;
      }
    }
  }
}

std::string describe_rule(const kind_rule& r) {
  std::string s = r.when_param.empty() ? "" : fmt::format("when {} is {}: ", r.when_param, r.when_value);
  switch (r.type) {
    case rule_type::multiple_of: s += fmt::format("{} is a multiple of {}", r.param, r.n); break;
    case rule_type::at_least_plus: s += fmt::format("{} >= {} + {}", r.param, r.other, r.n); break;
    case rule_type::one_of: s += fmt::format("{} is {}", r.param, or_list(r.keywords)); break;
    case rule_type::keyword_or_file:
      s += fmt::format("{} is {}an existing file{}", r.param, keyword_phrase(r),
                       r.format == file_format::safetensors ? " in safetensors format" : "");
      break;
    case rule_type::keyword_or_directory:
      s += fmt::format("{} is {}a directory holding {}{}", r.param, keyword_phrase(r), or_list(r.files),
                       r.format == file_format::llm_config    ? " (a Llama-family config)"
                       : r.format == file_format::safetensors ? " (readable safetensors)"
                                                              : "");
      break;
    case rule_type::within_model_context:
      s += fmt::format("{} <= max_position_embeddings of the {} (its preset or config.json)", r.param, r.other);
      break;
  }
  return s;
}

}  // namespace cudabench
