// parse_suite on arbitrary text: it either returns a suite or throws input_error (the CLI's exit
// 2 with file and JSON path). Any other exception, a crash, a leak, UB or a hang is a finding.
// The catalog has the real kinds' shapes and the rules that need no files (a fuzzer must not
// open whatever path it invents); the workload limit is low, so a sweep is refused fast.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "cudabench/errors.hpp"
#include "cudabench/suite.hpp"
#include "fuzz_catalog.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const cudabench::kind_catalog kinds = cudabench::fuzz::catalog();
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
