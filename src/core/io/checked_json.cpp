// See checked_json.hpp. Moved here from the suite parser so every whole-document reader shares it.
#include "checked_json.hpp"

#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cudabench/errors.hpp"
#include "cudabench/input_file.hpp"
#include "json_errors.hpp"

namespace cudabench::detail {
namespace {

using nlohmann::ordered_json;

[[noreturn]] void fail(const std::string& source, const std::string& path, const std::string& what) {
  if (path.empty()) throw input_error(fmt::format("{}: {}", source, what));
  throw input_error(fmt::format("{}: {}: {}", source, path, what));
}

// ---- JSON text -> DOM, rejecting duplicate keys (nlohmann would silently keep one) ------------

// Tracks where the parser is, so a duplicate key can be reported with its JSON path.
// Thrown from the parser's callback when the text nests deeper than max_json_depth.
struct too_deep {
  std::string path;
};

class duplicate_key_finder {
 public:
  bool on_event(nlohmann::json::parse_event_t event, const ordered_json& parsed) {
    using ev = nlohmann::json::parse_event_t;
    switch (event) {
      case ev::object_start:
      case ev::array_start:
        if (frames_.size() >= max_json_depth) throw too_deep{location()};
        frames_.push_back({event == ev::array_start, 0, {}, {}});
        break;
      case ev::key: {
        auto& top = frames_.back();
        top.key = parsed.get<std::string>();
        if (!top.keys.insert(top.key).second && error_.empty())
          error_ = fmt::format("{}duplicate key \"{}\"", path_prefix(), top.key);
        break;
      }
      case ev::object_end:
      case ev::array_end:
        frames_.pop_back();
        element_done();
        break;
      case ev::value: element_done(); break;
    }
    return true;
  }
  const std::string& error() const { return error_; }

 private:
  struct frame {
    bool is_array;
    std::size_t index;  // arrays: index of the element being parsed
    std::set<std::string> keys;
    std::string key;  // objects: the key being parsed
  };
  void element_done() {
    if (!frames_.empty() && frames_.back().is_array) ++frames_.back().index;
  }
  // "workloads[0]: " for the innermost object, "" at the top level.
  std::string path_prefix() const {
    std::string path;
    for (std::size_t i = 0; i + 1 < frames_.size(); ++i) {
      const auto& f = frames_[i];
      if (f.is_array) path += fmt::format("[{}]", f.index);
      else path += (path.empty() ? "" : ".") + f.key;
    }
    return path.empty() ? "" : path + ": ";
  }
  std::vector<frame> frames_;
  std::string error_;

 public:
  // "workloads[0].m" for the value being parsed when the parser stopped.
  std::string location() const {
    std::string path;
    for (const auto& f : frames_) {
      if (f.is_array) path += fmt::format("[{}]", f.index);
      else path += (path.empty() ? "" : ".") + f.key;
    }
    return path;
  }
};

}  // namespace

ordered_json parse_checked_json(const std::string& text, const std::string& source, const std::string& expected) {
  duplicate_key_finder finder;
  ordered_json root;
  // nlohmann's wording for empty input differs between releases; say it plainly ourselves.
  if (text.find_first_not_of(" \t\r\n") == std::string::npos)
    fail(source, "", "empty file (expected " + expected + ")");
  try {
    root = ordered_json::parse(text, [&finder](int, nlohmann::json::parse_event_t e, ordered_json& parsed) {
      return finder.on_event(e, parsed);
    });
  } catch (const too_deep& e) {
    fail(source, e.path, too_deep_text());
  } catch (const nlohmann::json::parse_error& e) {
    // what(): "[json.exception.parse_error.101] parse error at line 3, column 5: syntax error ..."
    fail(source, "", "invalid JSON: " + json_error_text(e));
  } catch (const nlohmann::json::out_of_range& e) {
    if (!is_number_overflow(e)) fail(source, "", "invalid JSON: " + json_error_text(e));
    // what(): "... number overflow parsing '1e400'"
    std::string what = e.what(), token = "a number";
    if (const auto open = what.find('\''), close = what.rfind('\''); open != std::string::npos && close > open)
      token = what.substr(open + 1, close - open - 1);
    fail(source, finder.location(), number_overflow_text(token));
  }
  if (!finder.error().empty()) fail(source, "", finder.error());
  return root;
}

ordered_json read_checked_json(const std::string& path, const std::string& what, std::uint64_t max_bytes) {
  return parse_checked_json(input_file::open(path, what, max_bytes).read_all(), path, "a " + what);
}

}  // namespace cudabench::detail
