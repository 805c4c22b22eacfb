// The factories of the workload kinds, one line each; src/workloads/<kind>/<kind>.hpp declares
// `make_<kind>(const workload_spec&)`. A kind's schema, row names and noise are its host-only
// description (src/kinds/<kind>.cpp, listed in src/kinds/catalog.cpp), so `list`, `validate` and
// compare need no GPU library. It lives with the workloads, not the harness: the harness (src/gpu)
// is handed a factory by its caller and knows no kind.
#include "cudabench/gpu/registry.hpp"

#include "workloads/llm_decode/llm_decode.hpp"
#include "workloads/matmul/matmul.hpp"
#include "workloads/memory_bandwidth/memory_bandwidth.hpp"
#include "workloads/resnet50/resnet50.hpp"
#include "workloads/train_step/train_step.hpp"
#include "workloads/transformer_memory/transformer_memory.hpp"

namespace cudabench {

const std::vector<kind_entry>& registry() {
  static const std::vector<kind_entry> kinds = {
      {"matmul", make_matmul},     {"memory_bandwidth", make_memory_bandwidth},     {"llm_decode", make_llm_decode},
      {"resnet50", make_resnet50}, {"transformer_memory", make_transformer_memory}, {"train_step", make_train_step},
  };
  return kinds;
}

const kind_entry* find_kind(const std::string& kind) {
  for (const auto& k : registry())
    if (k.kind == kind) return &k;
  return nullptr;
}

const workload_factory* find_factory(const std::string& kind) {
  const kind_entry* k = find_kind(kind);
  return k ? &k->make : nullptr;
}

}  // namespace cudabench
