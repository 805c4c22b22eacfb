// The explicit list of workload kinds (src/gpu/registry.cpp): name -> parameter schema + factory.
// `list`, `validate`, `run` and the docs all read this one list.
#pragma once
#include <functional>
#include <memory>
#include <vector>

#include "cudabench/kind_schema.hpp"
#include "cudabench/workload.hpp"

namespace cudabench {

struct kind_entry {
  kind_schema schema;
  std::function<std::unique_ptr<workload>(const workload_spec&)> make;
};

const std::vector<kind_entry>& registry();
const kind_entry* find_kind(const std::string& kind);
kind_catalog registry_catalog();

}  // namespace cudabench
