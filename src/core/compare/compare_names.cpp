// Readable row names for compare tables (compare.hpp: readable_name), written from each kind's
// entry in row_names.hpp; a kind without one falls back to its id.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "cudabench/compare.hpp"
#include "cudabench/kind_description.hpp"
#include "cudabench/row_names.hpp"

namespace cudabench {
namespace {

using oj = nlohmann::ordered_json;

std::string str(const oj& p, const std::string& key) {
  auto it = p.find(key);
  if (it == p.end()) return "";
  if (it->is_string()) return it->get<std::string>();
  return it->dump();
}

std::string base_name(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  const auto slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string bytes_text(const oj& p, const std::string& key) {
  auto it = p.find(key);
  if (it == p.end()) return "";
  if (!it->is_number_integer() || it->get<std::int64_t>() < 0) return str(p, key);
  const auto b = it->get<std::uint64_t>();
  const char* units[] = {"GiB", "MiB", "KiB"};
  const std::uint64_t sizes[] = {1ull << 30, 1ull << 20, 1ull << 10};
  for (int i = 0; i < 3; ++i)
    if (b >= sizes[i] && b % sizes[i] == 0) return fmt::format("{}{}", b / sizes[i], units[i]);
  return fmt::format("{}B", b);
}

std::string value_text(const oj& p, const std::string& key, name_format format) {
  switch (format) {
    case name_format::bytes: return bytes_text(p, key);
    case name_format::base_name: return base_name(str(p, key));
    case name_format::text: break;
  }
  return str(p, key);
}

// The part's text, or "" when it is left out.
std::string part_text(const name_part& part, const oj& p) {
  std::vector<std::string> values;
  for (const auto& key : part.keys) {
    values.push_back(value_text(p, key, part.format));
    if (values.back().empty()) return "";
  }
  if (values.empty()) return "";
  bool all_equal = !part.all_equal.empty();
  for (const auto& v : values) all_equal = all_equal && v == values[0];
  std::string v = values[0];
  if (all_equal && values.size() > 1) {
    v += part.all_equal;
  } else {
    for (std::size_t i = 1; i < values.size(); ++i) v += part.separator + values[i];
  }
  if (!part.omit.empty() && v == part.omit) return "";
  return part.prefix + v + part.suffix;
}

}  // namespace

name_part row_part(std::string key, std::string prefix, std::string suffix, std::string omit) {
  name_part p;
  p.keys = {std::move(key)};
  p.prefix = std::move(prefix);
  p.suffix = std::move(suffix);
  p.omit = std::move(omit);
  return p;
}

name_part row_part_bytes(std::string key) {
  name_part p = row_part(std::move(key));
  p.format = name_format::bytes;
  return p;
}

name_part row_part_bytes_prefixed(std::string key, std::string prefix) {
  name_part p = row_part_bytes(std::move(key));
  p.prefix = std::move(prefix);
  return p;
}

name_part row_part_base_name(std::string key) {
  name_part p = row_part(std::move(key));
  p.format = name_format::base_name;
  return p;
}

name_part row_part_joined(std::vector<std::string> keys, std::string separator, std::string all_equal) {
  name_part p;
  p.keys = std::move(keys);
  p.separator = std::move(separator);
  p.all_equal = std::move(all_equal);
  return p;
}

const kind_row_name* find_row_name(const std::string& kind) {
  const kind_description* k = find_kind_description(kind);
  return k ? &k->row_name : nullptr;
}

std::string describe_workload(const kind_row_name& names, const oj& params) {
  std::string out = names.kind;
  for (const auto& part : names.parts) {
    const std::string s = part_text(part, params);
    if (!s.empty()) out += " " + s;
  }
  return out;
}

std::string readable_name(const std::string& id, const std::string& kind, const oj& params, const std::string& metric,
                          const std::string& unit, const std::vector<std::string>& units_of_workload) {
  return readable_name(id, find_row_name(kind), params, metric, unit, units_of_workload);
}

std::string readable_name(const std::string& id, const kind_row_name* names, const oj& params,
                          const std::string& metric, const std::string& unit,
                          const std::vector<std::string>& units_of_workload) {
  const std::string what = names ? describe_workload(*names, params) : "";
  if (metric.empty()) return what.empty() ? id : what;
  if (what.empty()) return fmt::format("{} · {} ({})", id, metric, unit);
  int same_unit = 0;
  for (const auto& u : units_of_workload) same_unit += (u == unit);
  if (same_unit > 1) return fmt::format("{} · {} ({})", what, metric, unit);
  return fmt::format("{} ({})", what, unit);
}

}  // namespace cudabench
