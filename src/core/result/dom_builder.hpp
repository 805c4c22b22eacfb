// Builds an nlohmann DOM from SAX events, for the parts of a streamed document that are kept as
// JSON (a result file's top-level fields, a workload's params and tuning). The same rules as
// nlohmann's own DOM parser: a repeated key keeps the last value in the first position. Private to
// src/core.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace cudabench::detail {

class dom_builder {
 public:
  using J = nlohmann::ordered_json;

  bool active() const { return !open_.empty(); }
  // Starts a container in `target` (which the caller keeps alive until it closes).
  void begin(J& target, bool is_array) {
    target = is_array ? J::array() : J::object();
    open_.push_back(&target);
  }
  void key(const std::string& k) { key_ = k; }
  void scalar(J&& v) { add(std::move(v)); }
  void open(bool is_array) { open_.push_back(add(is_array ? J::array() : J::object())); }
  // Closes the innermost container; true when that was the one begin() started.
  bool close() {
    open_.pop_back();
    return open_.empty();
  }

 private:
  // Pointers into parents stay valid: nothing is added to a parent while a child is open.
  J* add(J&& v) {
    J& top = *open_.back();
    if (top.is_array()) {
      top.push_back(std::move(v));
      return &top.back();
    }
    J& slot = top[key_];
    slot = std::move(v);
    return &slot;
  }
  std::vector<J*> open_;
  std::string key_;
};

}  // namespace cudabench::detail
