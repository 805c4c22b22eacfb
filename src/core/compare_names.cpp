// Readable row names for compare tables (compare.hpp: readable_name). Each known kind says what
// distinguishes its workloads in a few words; an unknown kind falls back to its id.
#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cudabench/compare.hpp"

namespace cudabench {
namespace {

using oj = nlohmann::ordered_json;

std::string str(const oj& p, const char* key) {
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

std::string bytes_text(const oj& p, const char* key) {
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

// "batch 8" when the key is present and not 1 (or always, when `always`).
std::string batch_text(const oj& p, bool always) {
  const std::string b = str(p, "batch");
  if (b.empty() || (!always && b == "1")) return "";
  return "batch " + b;
}

void add(std::vector<std::string>& parts, std::string s) {
  if (!s.empty()) parts.push_back(std::move(s));
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& s : parts) out += (out.empty() ? "" : " ") + s;
  return out;
}

// The workload in a few words, or "" for a kind this file does not know.
std::string describe(const std::string& kind, const oj& p) {
  std::vector<std::string> parts{kind};
  if (kind == "matmul") {
    add(parts, str(p, "dtype"));
    const std::string m = str(p, "m"), n = str(p, "n"), k = str(p, "k");
    if (!m.empty() && m == n && n == k)
      parts.push_back(m + "³");
    else if (!m.empty() && !n.empty() && !k.empty())
      parts.push_back(m + "×" + n + "×" + k);
    add(parts, batch_text(p, false));
  } else if (kind == "memory_bandwidth") {
    add(parts, str(p, "op"));
    add(parts, bytes_text(p, "bytes"));
  } else if (kind == "llm_decode") {
    add(parts, base_name(str(p, "model")));
    add(parts, str(p, "dtype"));
    const std::string prompt = str(p, "prompt_tokens"), max_len = str(p, "max_length");
    if (!prompt.empty() && !max_len.empty()) parts.push_back(prompt + "→" + max_len);
    add(parts, batch_text(p, false));
  } else if (kind == "resnet50") {
    add(parts, str(p, "dtype"));
    add(parts, batch_text(p, true));
    const std::string size = str(p, "image_size");
    if (!size.empty() && size != "224") parts.push_back(size + "px");
  } else if (kind == "transformer_memory") {
    add(parts, str(p, "dtype"));
    add(parts, batch_text(p, true));
    const std::string seq = str(p, "seq_len");
    if (!seq.empty()) parts.push_back("seq " + seq);
  } else if (kind == "train_step") {
    add(parts, str(p, "dtype"));
    const std::string layers = str(p, "layers"), hidden = str(p, "hidden");
    if (!layers.empty()) parts.push_back("layers " + layers);
    if (!hidden.empty()) parts.push_back("hidden " + hidden);
    add(parts, batch_text(p, true));
  } else {
    return "";
  }
  return join(parts);
}

}  // namespace

std::string readable_name(const std::string& id, const std::string& kind, const oj& params, const std::string& metric,
                          const std::string& unit, const std::vector<std::string>& units_of_workload) {
  const std::string what = describe(kind, params);
  if (metric.empty()) return what.empty() ? id : what;
  if (what.empty()) return fmt::format("{} · {} ({})", id, metric, unit);
  int same_unit = 0;
  for (const auto& u : units_of_workload) same_unit += (u == unit);
  if (same_unit > 1) return fmt::format("{} · {} ({})", what, metric, unit);
  return fmt::format("{} ({})", what, unit);
}

}  // namespace cudabench
