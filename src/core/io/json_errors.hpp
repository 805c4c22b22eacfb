// How nlohmann's parse errors read in cudabench's messages. Private to src/core (the suite parser
// and the result reader word their errors alike).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace cudabench::detail {

// e.what() without the "[json.exception.parse_error.101] " prefix, which means nothing to a user.
inline std::string json_error_text(const std::exception& e) {
  std::string what = e.what();
  if (const auto pos = what.find("] "); what.rfind("[json.exception", 0) == 0 && pos != std::string::npos)
    what = what.substr(pos + 2);
  return what;
}

// nlohmann reports a number literal beyond double's range (1e400) as out_of_range.406.
inline bool is_number_overflow(const nlohmann::json::exception& e) { return e.id == 406; }

// Suites and result files nest a few levels (a result's tuning objects perhaps a few more); a
// hostile file nested a million deep would overflow the stack of anything recursive that later
// copies or prints its values, so the readers refuse to go deeper than this.
inline constexpr std::size_t max_json_depth = 64;
inline std::string too_deep_text() { return "nested deeper than 64 levels of arrays and objects"; }

// "number 1e400 is out of range (...)": the message for such a literal, after its JSON path.
inline std::string number_overflow_text(const std::string& token) {
  return "number " + token + " is out of range (a finite double is at most about 1.8e308)";
}

}  // namespace cudabench::detail
