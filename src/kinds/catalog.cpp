// The one list of built-in kinds. Adding a kind adds one line here (and one factory line in
// src/workloads/registry.cpp, which tests/registry/test_registry.cpp checks against this list).
// A plain list, not self-registration: the order is `list --kinds`'s, and nothing depends on which
// object files the linker keeps.
#include "kinds.hpp"

namespace cudabench {

const std::vector<kind_description>& kind_descriptions() {
  static const std::vector<kind_description> all = {
      kinds::matmul(),   kinds::memory_bandwidth(),   kinds::llm_decode(),
      kinds::resnet50(), kinds::transformer_memory(), kinds::train_step(),
  };
  return all;
}

const kind_description* find_kind_description(const std::string& kind) {
  for (const auto& k : kind_descriptions())
    if (k.schema.kind == kind) return &k;
  return nullptr;
}

kind_catalog builtin_kinds() {
  kind_catalog out;
  for (const auto& k : kind_descriptions()) out.push_back(k.schema);
  return out;
}

}  // namespace cudabench
