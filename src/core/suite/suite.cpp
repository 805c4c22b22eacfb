// Suite files (suite.hpp): strict parsing, sweep expansion and ids.
//
// Order of checks: JSON syntax and duplicate keys, then top-level keys, then each workload entry
// in file order (its kind, its keys in file order, then every parameter in schema order, then
// how many workloads it expands to), then, workload by workload, the kind's rules and duplicate
// ids. The first problem found is thrown;
// nothing is returned partially.
#include "cudabench/suite.hpp"

#include <sys/stat.h>

#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

#include <fmt/core.h>
#include <fmt/format.h>

#include "core/io/checked_json.hpp"
#include "core/io/json_errors.hpp"
#include "core/io/sha256.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/input_file.hpp"
#include "cudabench/kind_rules.hpp"
#include "suite_values.hpp"

namespace cudabench {

using detail::describe;
using detail::fail;
using nlohmann::ordered_json;

namespace {

// ---- small helpers --------------------------------------------------------------------------

template <class Range>
std::string join_keys(const Range& r) {
  return fmt::format("{}", fmt::join(r, ", "));
}

std::string known_kinds(const kind_catalog& kinds) {
  std::vector<std::string> names;
  for (const auto& k : kinds) names.push_back(k.kind);
  return names.empty() ? "none" : join_keys(names);
}

const kind_schema* find_schema(const kind_catalog& kinds, const std::string& kind) {
  for (const auto& k : kinds)
    if (k.kind == kind) return &k;
  return nullptr;
}

// ---- top level --------------------------------------------------------------------------------

void check_unknown_keys(const ordered_json& obj, const std::vector<std::string>& allowed, const std::string& source,
                        const std::string& path) {
  for (const auto& item : obj.items()) {
    bool ok = false;
    for (const auto& a : allowed) ok = ok || a == item.key();
    if (!ok) fail(source, path, fmt::format("unknown key \"{}\" (expected {})", item.key(), join_keys(allowed)));
  }
}

std::string get_string(const ordered_json& obj, const char* key, bool required, const std::string& source) {
  if (!obj.contains(key)) {
    if (required) fail(source, "", fmt::format("missing required key \"{}\" (expected a string)", key));
    return {};
  }
  const auto& v = obj[key];
  if (!v.is_string()) fail(source, key, "expected a string, got " + describe(v));
  auto s = v.get<std::string>();
  if (required && s.empty()) fail(source, key, "expected a non-empty string");
  return s;
}

run_settings parse_defaults(const ordered_json& root, const std::string& source) {
  run_settings out;
  if (!root.contains("defaults")) return out;
  const auto& d = root["defaults"];
  if (!d.is_object()) fail(source, "defaults", "expected an object, got " + describe(d));
  check_unknown_keys(d, {"repetitions", "warmup", "min_time_ms"}, source, "defaults");
  // The same ranges as --reps, --warmup and --min-time-ms: a suite may not ask for 10^9
  // repetitions that the command line would refuse.
  const auto integer = [&](const char* key, int min, int max, int& into) {
    if (!d.contains(key)) return;
    param_def def;
    def.name = key;
    def.type = param_type::integer;
    def.min = min;
    def.max = max;
    into =
        static_cast<int>(detail::check_value(def, d[key], source, std::string("defaults.") + key).get<std::int64_t>());
  };
  integer("repetitions", 1, max_repetitions, out.repetitions);
  integer("warmup", 0, max_warmup, out.warmup);
  if (d.contains("min_time_ms")) {
    param_def def;
    def.name = "min_time_ms";
    def.type = param_type::number;
    def.min = 0;
    def.max = max_min_time_ms;
    out.min_time_ms = detail::check_value(def, d["min_time_ms"], source, "defaults.min_time_ms").get<double>();
  }
  return out;
}

// ---- one workload entry -> its axes -> its expanded specs ------------------------------------

struct axis {
  const param_def* def;
  std::vector<ordered_json> values;  // one for a scalar, several for a sweep; empty: param omitted
};

struct resolved_entry {
  const kind_schema* schema;
  std::string kind;
  std::vector<axis> axes;  // one per schema parameter, in schema order
};

// Checks an entry's kind, keys and every value; the sweep is not expanded yet.
resolved_entry resolve_entry(const ordered_json& entry, const std::string& path, const kind_catalog& kinds,
                             const std::string& source) {
  if (!entry.is_object()) fail(source, path, "expected an object, got " + describe(entry));
  if (!entry.contains("kind"))
    fail(source, path, fmt::format("missing required key \"kind\" (known: {})", known_kinds(kinds)));
  const auto& kind_value = entry["kind"];
  if (!kind_value.is_string()) fail(source, path + ".kind", "expected a string, got " + describe(kind_value));
  const std::string kind = kind_value.get<std::string>();
  const kind_schema* schema = find_schema(kinds, kind);
  if (!schema)
    fail(source, path + ".kind", fmt::format("unknown kind {} (known: {})", kind_value.dump(), known_kinds(kinds)));

  for (const auto& item : entry.items()) {
    if (item.key() == "kind" || schema->find(item.key())) continue;
    std::vector<std::string> names;
    for (const auto& p : schema->params) names.push_back(p.name);
    fail(source, path,
         fmt::format("unknown key \"{}\" for kind {} (expected {})", item.key(), kind,
                     names.empty() ? std::string("no parameters") : join_keys(names)));
  }

  resolved_entry out{schema, kind, {}};
  for (const auto& def : schema->params) {
    axis a{&def, {}};
    const std::string param_path = path + "." + def.name;
    if (entry.contains(def.name)) {
      const auto& v = entry[def.name];
      if (v.is_array()) {
        if (v.empty()) fail(source, param_path, "empty sweep (an array needs at least one value)");
        for (std::size_t j = 0; j < v.size(); ++j)
          a.values.push_back(detail::check_value(def, v[j], source, fmt::format("{}[{}]", param_path, j)));
      } else {
        a.values.push_back(detail::check_value(def, v, source, param_path));
      }
    } else if (!def.default_value.is_null()) {
      a.values.push_back(detail::check_value(def, ordered_json(def.default_value), source,
                                             param_path + " (default of kind " + kind + ")"));
    } else if (def.required) {
      fail(source, path,
           fmt::format("missing required parameter \"{}\" for kind {} (expected {})", def.name, kind,
                       detail::expected_phrase(def.type)));
    }
    out.axes.push_back(std::move(a));
  }
  return out;
}

// How many workloads the entry expands to: the product of its axis lengths, saturating at
// UINT64_MAX (a few long axes overflow 64 bits), and "dtype 5 × m 100 × ..." naming the sweeps.
struct expansion_size {
  std::uint64_t count = 1;
  bool saturated = false;
  std::string axes;
};

expansion_size size_of(const resolved_entry& e) {
  expansion_size out;
  for (const auto& a : e.axes) {
    const std::uint64_t n = a.values.size();
    if (n <= 1) continue;
    out.axes += fmt::format("{}{} {}", out.axes.empty() ? "" : " × ", a.def->name, n);
    if (out.count > std::numeric_limits<std::uint64_t>::max() / n) out.saturated = true;
    out.count = out.saturated ? std::numeric_limits<std::uint64_t>::max() : out.count * n;
  }
  return out;
}

std::string count_text(const expansion_size& s) {
  return s.saturated ? fmt::format("more than {}", std::numeric_limits<std::uint64_t>::max()) : std::to_string(s.count);
}

// Cartesian product, first schema parameter varying slowest (an odometer over the axes).
std::vector<workload_spec> expand(const resolved_entry& e) {
  const auto& axes = e.axes;
  std::vector<workload_spec> out;
  std::vector<std::size_t> pos(axes.size(), 0);
  for (;;) {
    workload_spec spec;
    spec.kind = e.kind;
    spec.params = ordered_json::object();
    spec.id = e.kind;
    for (std::size_t i = 0; i < axes.size(); ++i) {
      if (axes[i].values.empty()) continue;
      const auto& value = axes[i].values[pos[i]];
      spec.params[axes[i].def->name] = value;
      if (axes[i].def->in_id) spec.id += "/" + axes[i].def->name + "=" + detail::id_value(value);
    }
    out.push_back(std::move(spec));
    std::size_t i = axes.size();
    while (i > 0) {
      --i;
      if (axes[i].values.size() > 1 && ++pos[i] < axes[i].values.size()) break;
      pos[i] = 0;
      if (i == 0) return out;
    }
    if (axes.empty()) return out;
  }
}

}  // namespace

// ---- public API -------------------------------------------------------------------------------

suite parse_suite(const std::string& text, const std::string& source, const kind_catalog& kinds,
                  const suite_limits& limits) {
  const ordered_json root = detail::parse_checked_json(text, source, "a JSON object with \"name\" and \"workloads\"");
  if (!root.is_object()) fail(source, "", "expected a JSON object at the top level, got " + describe(root));
  check_unknown_keys(root, {"name", "description", "defaults", "workloads", "$schema"}, source, "");

  suite s;
  s.source = source;
  s.sha256 = sha256_hex(text);
  s.name = get_string(root, "name", true, source);
  s.description = get_string(root, "description", false, source);
  get_string(root, "$schema", false, source);  // editors' hint; checked for type, otherwise ignored
  s.defaults = parse_defaults(root, source);

  if (!root.contains("workloads"))
    fail(source, "", "missing required key \"workloads\" (expected a non-empty array of workload entries)");
  const auto& entries = root["workloads"];
  if (!entries.is_array()) fail(source, "workloads", "expected an array, got " + describe(entries));
  if (entries.empty()) fail(source, "workloads", "empty (a suite needs at least one workload)");

  // Every entry is checked and counted before any is expanded: a 1 KB suite can ask for 10^10
  // workloads, and building them is what must not happen.
  std::vector<resolved_entry> resolved;
  std::uint64_t total = 0;
  const std::uint64_t limit = limits.max_workloads;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const std::string path = fmt::format("workloads[{}]", i);
    resolved.push_back(resolve_entry(entries[i], path, kinds, source));
    const expansion_size n = size_of(resolved.back());
    if (n.saturated || n.count > limit)
      fail(source, path,
           fmt::format("expands to {} workloads ({}), more than the limit of {} (narrow the sweep, "
                       "or raise the limit with --max-workloads)",
                       count_text(n), n.axes, limit));
    if (n.count > limit - total)
      fail(source, path,
           fmt::format("the suite expands to {} workloads with this entry ({}{}), more than the "
                       "limit of {} (narrow the sweeps, or raise the limit with --max-workloads)",
                       total + n.count, n.count, n.axes.empty() ? "" : ": " + n.axes, limit));
    total += n.count;
  }

  std::unordered_map<std::string, std::size_t> first_entry_of_id;
  first_entry_of_id.reserve(total);
  s.workloads.reserve(total);
  rule_checker rules;  // each kind's cross-parameter and file rules (kind_rules.hpp)
  for (std::size_t i = 0; i < resolved.size(); ++i) {
    const std::string path = fmt::format("workloads[{}]", i);
    for (auto& spec : expand(resolved[i])) {
      rules.check(*resolved[i].schema, spec, source, path);
      const auto [it, inserted] = first_entry_of_id.emplace(spec.id, i);
      if (!inserted) {
        if (it->second == i)
          fail(source, path, fmt::format("duplicate id \"{}\" (the entry expands to it more than once)", spec.id));
        fail(source, path,
             fmt::format("duplicate id \"{}\" (workloads[{}] already expands to it)", spec.id, it->second));
      }
      s.workloads.push_back(std::move(spec));
    }
  }
  return s;
}

namespace {

std::string read_suite_file(const std::string& path) {
  return input_file::open(path, "suite file", max_suite_file_bytes).read_all();
}

bool ends_with_json(const std::string& s) { return s.size() > 5 && s.compare(s.size() - 5, 5, ".json") == 0; }

bool is_regular_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

}  // namespace

suite load_suite(const std::string& name_or_path, const kind_catalog& kinds,
                 const std::vector<std::string>& search_dirs, const suite_limits& limits) {
  if (name_or_path.empty()) throw input_error("no suite given (expected a suite name or a path to a .json file)");
  // Something at that path (even a directory, a FIFO or a broken symlink) is what the user meant
  // when the argument looks like a path; input_file says what is wrong with it. A bare NAME that
  // happens to exist as, say, a directory still finds configs/NAME.json; a regular file wins.
  const bool looks_like_path = name_or_path.find('/') != std::string::npos || ends_with_json(name_or_path);
  const bool exists = path_exists(name_or_path);
  if (exists && (looks_like_path || is_regular_file(name_or_path)))
    return parse_suite(read_suite_file(name_or_path), name_or_path, kinds, limits);
  if (looks_like_path && name_or_path.find('/') != std::string::npos)
    throw input_error(fmt::format("suite \"{}\" not found (no such file)", name_or_path));

  const bool has_ext = ends_with_json(name_or_path);
  const std::string file_name = has_ext ? name_or_path : name_or_path + ".json";
  std::vector<std::string> looked_in;
  if (has_ext) looked_in.push_back(".");  // checked above as a path
  for (const auto& dir : search_dirs) {
    if (dir.empty()) continue;
    const std::string candidate = dir.back() == '/' ? dir + file_name : dir + "/" + file_name;
    if (path_exists(candidate)) return parse_suite(read_suite_file(candidate), candidate, kinds, limits);
    looked_in.push_back(dir);
  }
  if (exists) return parse_suite(read_suite_file(name_or_path), name_or_path, kinds, limits);  // says what it is
  throw input_error(fmt::format("suite \"{}\" not found (looked for {} in: {})", name_or_path, file_name,
                                looked_in.empty() ? std::string("the current directory") : join_keys(looked_in)));
}

// ---- workload_spec accessors ---------------------------------------------------------------------

namespace {
const ordered_json& param_or_throw(const workload_spec& w, const std::string& key) {
  const auto it = w.params.find(key);
  if (it == w.params.end()) throw input_error(fmt::format("workload \"{}\": parameter \"{}\" is missing", w.id, key));
  return *it;
}
[[noreturn]] void wrong_type(const workload_spec& w, const std::string& key, const char* expected) {
  throw input_error(fmt::format("workload \"{}\": parameter \"{}\" is {}, expected {}", w.id, key,
                                describe(w.params.at(key)), expected));
}
}  // namespace

std::int64_t workload_spec::get_int(const std::string& key) const {
  const auto& v = param_or_throw(*this, key);
  if (!v.is_number_integer()) wrong_type(*this, key, "an integer");
  return v.get<std::int64_t>();
}

double workload_spec::get_number(const std::string& key) const {
  const auto& v = param_or_throw(*this, key);
  if (!v.is_number()) wrong_type(*this, key, "a number");
  return v.get<double>();
}

std::string workload_spec::get_string(const std::string& key) const {
  const auto& v = param_or_throw(*this, key);
  if (!v.is_string()) wrong_type(*this, key, "a string");
  return v.get<std::string>();
}

bool workload_spec::get_bool(const std::string& key) const {
  const auto& v = param_or_throw(*this, key);
  if (!v.is_boolean()) wrong_type(*this, key, "a boolean");
  return v.get<bool>();
}

bool workload_spec::has(const std::string& key) const { return params.contains(key); }

}  // namespace cudabench
