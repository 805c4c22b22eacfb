// Private helpers of the suite parser (suite.cpp): checking one parameter value against its
// param_def, and printing values for messages and ids. Every failure is an input_error whose
// message is `<source>: <json path>: <what was expected>`.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "cudabench/kind_schema.hpp"

namespace cudabench::detail {

// `source: path: what`, or `source: what` when path is empty.
[[noreturn]] void fail(const std::string& source, const std::string& path, const std::string& what);

// How a JSON value reads in a message: `string "big"`, `integer 5`, `number 4096.0`,
// `boolean true`, `null`, `an object`, `an array`.
std::string describe(const nlohmann::ordered_json& v);

// "an integer", "a string", ... as used in "expected ...".
std::string expected_phrase(param_type t);

// A number in its shortest round-trip form ("1", "0.5", "1e+20").
std::string format_number(double v);

// A scalar as it appears in an id: strings raw, integers plain, numbers shortest, booleans.
std::string id_value(const nlohmann::ordered_json& v);

// Checks one scalar (not an array) against `def` and returns it normalised: bytes strings become
// integers, `number` values become doubles. Throws input_error naming `source` and `path`.
nlohmann::ordered_json check_value(const param_def& def, const nlohmann::ordered_json& v, const std::string& source,
                                   const std::string& path);

}  // namespace cudabench::detail
