// The single list of workload kinds. Add a kind by adding one line below; its header
// src/workloads/<kind>/<kind>.hpp declares `<kind>_schema()` and `make_<kind>(const workload_spec&)`.
// It lives with the workloads, not the harness: the harness (src/gpu) is handed a factory by its
// caller and knows no kind.
#include "cudabench/registry.hpp"

#include "workloads/llm_decode/llm_decode.hpp"
#include "workloads/matmul/matmul.hpp"
#include "workloads/memory_bandwidth/memory_bandwidth.hpp"
#include "workloads/resnet50/resnet50.hpp"
#include "workloads/train_step/train_step.hpp"
#include "workloads/transformer_memory/transformer_memory.hpp"

namespace cudabench {

const std::vector<kind_entry>& registry() {
  static const std::vector<kind_entry> kinds = {
      {matmul_schema(), make_matmul},
      {memory_bandwidth_schema(), make_memory_bandwidth},
      {llm_decode_schema(), make_llm_decode},
      {resnet50_schema(), make_resnet50},
      {transformer_memory_schema(), make_transformer_memory},
      {train_step_schema(), make_train_step},
  };
  return kinds;
}

const kind_entry* find_kind(const std::string& kind) {
  for (const auto& k : registry())
    if (k.schema.kind == kind) return &k;
  return nullptr;
}

const workload_factory* find_factory(const std::string& kind) {
  const kind_entry* k = find_kind(kind);
  return k ? &k->make : nullptr;
}

kind_catalog registry_catalog() {
  kind_catalog out;
  for (const auto& k : registry()) out.push_back(k.schema);
  return out;
}

}  // namespace cudabench
