// The checked JSON-text-to-DOM parser every whole-document reader uses (suites, fleet files, and
// any file sniffed before its reader is chosen): nesting at most max_json_depth levels (a file
// nested 300,000 deep must not overflow the stack of whatever later copies it), numbers within a
// double's range (1e400 is refused with its JSON path, not turned into inf), no duplicate keys
// (nlohmann would silently keep one), and nlohmann's exception codes never shown. Result files are
// streamed instead (result_stream.cpp) with the same limits. Private to src/core.
#pragma once
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace cudabench::detail {

// input_error "SOURCE: JSON.PATH: what" on any of the above; an empty or blank text is "empty file
// (expected EXPECTED)".
nlohmann::ordered_json parse_checked_json(const std::string& text, const std::string& source,
                                          const std::string& expected);

// The file through input_file (a regular, non-empty file of at most `max_bytes`; input_file.hpp),
// then parse_checked_json. `what` names the file in messages ("fleet file").
nlohmann::ordered_json read_checked_json(const std::string& path, const std::string& what, std::uint64_t max_bytes);

}  // namespace cudabench::detail
