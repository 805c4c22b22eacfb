// See id_filter.hpp.
#include "cudabench/id_filter.hpp"

#include <cstddef>
#include <string>

namespace cudabench {

namespace {
// Iterative glob: `*` any run of characters (slashes included), `?` exactly one.
bool glob_match(const std::string& text, const std::string& pattern) {
  std::size_t t = 0, p = 0, star = std::string::npos, resume = 0;
  while (t < text.size()) {
    if (p < pattern.size() && (pattern[p] == '?' || pattern[p] == text[t])) {
      ++t;
      ++p;
    } else if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      resume = t;
    } else if (star != std::string::npos) {
      p = star + 1;
      t = ++resume;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return {};
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}
}  // namespace

bool id_matches(const std::string& id, const std::string& patterns) {
  bool any_pattern = false;
  std::size_t start = 0;
  while (start <= patterns.size()) {
    const auto comma = patterns.find(',', start);
    const auto end = comma == std::string::npos ? patterns.size() : comma;
    const std::string pattern = trim(patterns.substr(start, end - start));
    if (!pattern.empty()) {
      any_pattern = true;
      if (glob_match(id, pattern)) return true;
    }
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return !any_pattern;
}

}  // namespace cudabench
