// The explicit list of workload kinds (src/workloads/registry.cpp): name -> parameter schema + factory.
// `list`, `validate`, `run` and the docs all read this one list.
#pragma once
#include <string>
#include <vector>

#include "cudabench/kind_schema.hpp"
#include "cudabench/workload.hpp"

namespace cudabench {

struct kind_entry {
  kind_schema schema;
  workload_factory make;
};

const std::vector<kind_entry>& registry();
const kind_entry* find_kind(const std::string& kind);  // null for a kind not registered
// The kind's factory, or null: what `run` hands the harness (runner.hpp: factory_lookup).
const workload_factory* find_factory(const std::string& kind);
kind_catalog registry_catalog();

}  // namespace cudabench
