// The GPU half of the workload kinds (src/workloads/registry.cpp): name -> the factory that runs
// it. Everything else about a kind is host-only, in its description (kind_description.hpp); the
// registry lists the same kinds in the same order, which tests/registry/test_registry.cpp checks.
#pragma once
#include <string>
#include <vector>

#include "cudabench/gpu/workload.hpp"

namespace cudabench {

struct kind_entry {
  std::string kind;
  workload_factory make;
};

const std::vector<kind_entry>& registry();
const kind_entry* find_kind(const std::string& kind);  // null for a kind not registered
// The kind's factory, or null: what `run` hands the harness (runner.hpp: factory_lookup).
const workload_factory* find_factory(const std::string& kind);

}  // namespace cudabench
