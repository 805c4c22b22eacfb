// parse_suite on arbitrary text: it either returns a suite or throws input_error (the CLI's exit
// 2 with file and JSON path). Any other exception, a crash, a leak, UB or a hang is a finding.
// The catalog is the built-in kinds' own (src/kinds) without the rules that open files: a fuzzer
// must not open whatever path it invents (the context rule only stats a non-preset model name).
// The workload limit is low, so a sweep is refused fast.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "cudabench/errors.hpp"
#include "cudabench/kind_description.hpp"
#include "cudabench/suite.hpp"

namespace {

cudabench::kind_catalog catalog_without_file_rules() {
  cudabench::kind_catalog kinds = cudabench::builtin_kinds();
  for (auto& k : kinds)
    k.rules.erase(std::remove_if(k.rules.begin(), k.rules.end(),
                                 [](const cudabench::kind_rule& r) {
                                   return r.type == cudabench::rule_type::keyword_or_file ||
                                          r.type == cudabench::rule_type::keyword_or_directory;
                                 }),
                  k.rules.end());
  return kinds;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const cudabench::kind_catalog kinds = catalog_without_file_rules();
  cudabench::suite_limits limits;
  limits.max_workloads = 2000;
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    const cudabench::suite s = cudabench::parse_suite(text, "fuzz.json", kinds, limits);
    if (s.workloads.empty() || s.workloads.size() > limits.max_workloads) std::abort();
    for (const auto& w : s.workloads)
      if (w.id.rfind(w.kind + "/", 0) != 0 && w.id != w.kind) std::abort();  // ids start with the kind
  } catch (const cudabench::input_error&) {
  }
  return 0;
}
