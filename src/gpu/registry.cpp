// The single list of workload kinds. Add a kind by adding one line below; its header in
// src/workloads/ declares `<kind>_schema()` and `make_<kind>(const workload_spec&)`.
#include "cudabench/registry.hpp"

#include "workloads/llm_decode.hpp"

namespace cudabench {

const std::vector<kind_entry>& registry() {
  static const std::vector<kind_entry> kinds = {
      // {matmul_schema(), make_matmul},
      {llm_decode_schema(), make_llm_decode},
  };
  return kinds;
}

const kind_entry* find_kind(const std::string& kind) {
  for (const auto& k : registry())
    if (k.schema.kind == kind) return &k;
  return nullptr;
}

kind_catalog registry_catalog() {
  kind_catalog out;
  for (const auto& k : registry()) out.push_back(k.schema);
  return out;
}

}  // namespace cudabench
