// See suite_values.hpp.
#include "suite_values.hpp"

#include <cctype>
#include <cstdint>
#include <limits>

#include <fmt/core.h>
#include <fmt/format.h>

#include "cudabench/errors.hpp"
#include "cudabench/suite.hpp"
#include "cudabench/text_safety.hpp"

namespace cudabench {
namespace detail {

void fail(const std::string& source, const std::string& path, const std::string& what) {
  if (path.empty()) throw input_error(fmt::format("{}: {}", source, what));
  throw input_error(fmt::format("{}: {}: {}", source, path, what));
}

std::string describe(const nlohmann::ordered_json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::string: return "string " + v.dump();
    case nlohmann::json::value_t::number_integer:
    case nlohmann::json::value_t::number_unsigned: return "integer " + v.dump();
    case nlohmann::json::value_t::number_float: return "number " + v.dump();
    case nlohmann::json::value_t::boolean: return "boolean " + v.dump();
    case nlohmann::json::value_t::null: return "null";
    case nlohmann::json::value_t::object: return "an object";
    case nlohmann::json::value_t::array: return "an array";
    default: return "an unsupported value";
  }
}

std::string expected_phrase(param_type t) {
  switch (t) {
    case param_type::integer: return "an integer";
    case param_type::number: return "a number";
    case param_type::string: return "a string";
    case param_type::boolean: return "a boolean";
    case param_type::bytes: return "a byte size (an integer or a string such as \"512MiB\")";
  }
  return "?";
}

std::string format_number(double v) { return fmt::format("{}", v); }

std::string id_value(const nlohmann::ordered_json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return format_number(v.get<double>());
  return v.dump();  // integers, booleans
}

namespace {

void check_range(const param_def& def, double value, const std::string& shown, const std::string& source,
                 const std::string& path) {
  if (value < def.min) fail(source, path, fmt::format("{} is below the minimum {}", shown, format_number(def.min)));
  if (value > def.max) fail(source, path, fmt::format("{} is above the maximum {}", shown, format_number(def.max)));
}

[[noreturn]] void type_error(const param_def& def, const nlohmann::ordered_json& v, const std::string& source,
                             const std::string& path) {
  fail(source, path, fmt::format("expected {}, got {}", expected_phrase(def.type), describe(v)));
}

}  // namespace

nlohmann::ordered_json check_value(const param_def& def, const nlohmann::ordered_json& v, const std::string& source,
                                   const std::string& path) {
  switch (def.type) {
    case param_type::integer: {
      if (!v.is_number_integer()) type_error(def, v, source, path);
      if (v.is_number_unsigned() && v.get<std::uint64_t>() > std::uint64_t(std::numeric_limits<std::int64_t>::max()))
        fail(source, path,
             fmt::format("{} is above the maximum {}", v.dump(), std::numeric_limits<std::int64_t>::max()));
      const std::int64_t i = v.get<std::int64_t>();
      check_range(def, double(i), std::to_string(i), source, path);
      return nlohmann::ordered_json(i);
    }
    case param_type::number: {
      if (!v.is_number()) type_error(def, v, source, path);
      const double d = v.get<double>();
      check_range(def, d, format_number(d), source, path);
      return nlohmann::ordered_json(d);
    }
    case param_type::string: {
      if (!v.is_string()) type_error(def, v, source, path);
      const auto s = v.get<std::string>();
      // A string parameter becomes part of the workload id and is often a path: an ANSI escape,
      // NUL or direction override in it is never meant (dump() shows it as \u001b).
      if (has_control_text(s))
        fail(source, path,
             fmt::format("{} contains a control character (parameters must be printable text)", v.dump()));
      if (!def.choices.empty()) {
        bool allowed = false;
        for (const auto& c : def.choices) allowed = allowed || c == s;
        if (!allowed)
          fail(source, path,
               fmt::format("unknown {} {} (expected {})", def.name, v.dump(), fmt::join(def.choices, ", ")));
      }
      return v;
    }
    case param_type::boolean:
      if (!v.is_boolean()) type_error(def, v, source, path);
      return v;
    case param_type::bytes: {
      std::uint64_t bytes = 0;
      std::string shown;
      if (v.is_number_unsigned()) {
        bytes = v.get<std::uint64_t>();
        shown = std::to_string(bytes);
      } else if (v.is_number_integer()) {  // negative
        fail(source, path, fmt::format("{} is negative (expected a byte size)", v.dump()));
      } else if (v.is_string()) {
        bytes = parse_byte_size(v.get<std::string>(), path.empty() ? source : source + ": " + path);
        shown = fmt::format("{} ({} bytes)", v.dump(), bytes);
      } else {
        type_error(def, v, source, path);
      }
      check_range(def, double(bytes), shown, source, path);
      return nlohmann::ordered_json(bytes);
    }
  }
  type_error(def, v, source, path);
}

}  // namespace detail

namespace {

// Units: B, decimal (KB = 1000) and binary (KiB = 1024) multiples up to tera.
struct unit {
  const char* name;
  std::uint64_t factor;
};
constexpr unit k_units[] = {
    {"B", 1},
    {"KB", 1000ull},
    {"MB", 1000ull * 1000},
    {"GB", 1000ull * 1000 * 1000},
    {"TB", 1000ull * 1000 * 1000 * 1000},
    {"KiB", 1ull << 10},
    {"MiB", 1ull << 20},
    {"GiB", 1ull << 30},
    {"TiB", 1ull << 40},
};

}  // namespace

std::uint64_t parse_byte_size(const std::string& text, const std::string& context) {
  const auto bad = [&](const std::string& why) -> std::uint64_t {
    const std::string msg = fmt::format(
        "invalid byte size \"{}\" ({}; expected an integer with an optional unit B, KB, MB, GB, "
        "TB, KiB, MiB, GiB or TiB, e.g. \"512MiB\", \"1.5GiB\", \"4GB\")",
        text, why);
    throw input_error(context.empty() ? msg : context + ": " + msg);
  };
  // Digits with an optional fraction, optional spaces, then an optional unit.
  std::size_t i = 0;
  const std::size_t n = text.size();
  while (i < n && text[i] == ' ') ++i;
  std::string int_digits, frac_digits;
  while (i < n && std::isdigit(static_cast<unsigned char>(text[i]))) int_digits += text[i++];
  if (i < n && text[i] == '.') {
    ++i;
    while (i < n && std::isdigit(static_cast<unsigned char>(text[i]))) frac_digits += text[i++];
    if (frac_digits.empty()) return bad("no digits after the decimal point");
  }
  if (int_digits.empty()) return bad("no number");
  while (i < n && text[i] == ' ') ++i;
  std::string unit_text = text.substr(i);
  while (!unit_text.empty() && unit_text.back() == ' ') unit_text.pop_back();
  std::uint64_t factor = 0;
  if (unit_text.empty()) factor = 1;
  for (const auto& u : k_units)
    if (unit_text == u.name) factor = u.factor;
  if (factor == 0) return bad(fmt::format("unknown unit \"{}\"", unit_text));
  // Exact arithmetic: value = digits * factor / 10^frac_len, which must be a whole number.
  while (int_digits.size() > 1 && int_digits[0] == '0') int_digits.erase(0, 1);
  while (!frac_digits.empty() && frac_digits.back() == '0') frac_digits.pop_back();
  const std::string digits = int_digits + frac_digits;
  if (digits.size() > 24) return bad("too many digits");  // keeps digits * factor within 128 bits
  unsigned __int128 mantissa = 0;
  for (char c : digits) mantissa = mantissa * 10 + unsigned(c - '0');
  unsigned __int128 scale = 1;
  for (std::size_t k = 0; k < frac_digits.size(); ++k) scale *= 10;
  const unsigned __int128 scaled = mantissa * factor;
  if (scaled % scale != 0) return bad("not a whole number of bytes");
  const unsigned __int128 bytes = scaled / scale;
  if (bytes > std::numeric_limits<std::uint64_t>::max()) return bad("too large");
  return static_cast<std::uint64_t>(bytes);
}

}  // namespace cudabench
