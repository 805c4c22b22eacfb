// See text_safety.hpp.
#include "cudabench/text_safety.hpp"

#include <cstdint>

#include <fmt/format.h>

namespace cudabench {
namespace {

// Decodes one UTF-8 sequence at s[i]; returns its length (0: not valid UTF-8) and the code point.
std::size_t decode(std::string_view s, std::size_t i, std::uint32_t& cp) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  std::size_t n = 0;
  if (c < 0x80) {
    cp = c;
    return 1;
  }
  if (c >= 0xC2 && c <= 0xDF) n = 2, cp = c & 0x1F;
  else if (c >= 0xE0 && c <= 0xEF) n = 3, cp = c & 0x0F;
  else if (c >= 0xF0 && c <= 0xF4) n = 4, cp = c & 0x07;
  else return 0;
  if (i + n > s.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(k) & 0x3F);
  }
  // Overlong forms, surrogates and values past U+10FFFF are not UTF-8.
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

bool is_control(std::uint32_t cp) {
  return cp < 0x20 || cp == 0x7F || (cp >= 0x80 && cp <= 0x9F) || cp == 0x061C || cp == 0x200E || cp == 0x200F ||
         cp == 0x2028 || cp == 0x2029 || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

}  // namespace

std::string terminal_text(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    std::uint32_t cp = 0;
    const std::size_t n = decode(s, i, cp);
    if (n == 0) {
      out += fmt::format("\\x{:02x}", static_cast<unsigned char>(s[i]));
      ++i;
      continue;
    }
    if (!is_control(cp)) {
      out.append(s.substr(i, n));
    } else if (cp == '\n') {
      out += "\\n";
    } else if (cp == '\t') {
      out += "\\t";
    } else if (cp == '\r') {
      out += "\\r";
    } else if (cp < 0x80) {
      out += fmt::format("\\x{:02x}", cp);
    } else {
      out += fmt::format("\\u{{{:04x}}}", cp);
    }
    i += n;
  }
  return out;
}

bool has_control_text(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    std::uint32_t cp = 0;
    const std::size_t n = decode(s, i, cp);
    if (n == 0 || is_control(cp)) return true;
    i += n;
  }
  return false;
}

std::string json_text_safe(std::string dumped) {
  if (!has_control_text(dumped)) return dumped;  // the common case: no copy
  std::string out;
  out.reserve(dumped.size());
  for (std::size_t i = 0; i < dumped.size();) {
    std::uint32_t cp = 0;
    const std::size_t n = decode(dumped, i, cp);
    // n == 0 cannot happen in nlohmann's output (it writes UTF-8 or throws); keep the byte then.
    if (n != 0 && cp >= 0x80 && is_control(cp)) out += fmt::format("\\u{:04x}", cp);
    else out.append(dumped, i, n == 0 ? 1 : n);
    i += n == 0 ? 1 : n;
  }
  return out;
}

bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    std::uint32_t cp = 0;
    const std::size_t n = decode(s, i, cp);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string file_name_component(std::string_view s) {
  std::string out;
  for (char ch : s) {
    const bool keep = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '.' ||
                      ch == '_' || ch == '+' || ch == '-';
    if (keep) out += ch;
    else if (out.empty() || out.back() != '_') out += '_';
    if (out.size() >= 64) break;
  }
  while (!out.empty() && (out.front() == '.' || out.front() == '-')) out.erase(0, 1);
  return out.empty() ? "unnamed" : out;
}

}  // namespace cudabench
