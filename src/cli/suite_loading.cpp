// See suite_loading.hpp.
#include "cli/suite_loading.hpp"

#include <fmt/core.h>

#include "cli/commands.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/registry.hpp"

namespace cudabench::cli {

suite load_cli_suite(const std::string& name_or_path) {
  return load_suite(name_or_path, registry_catalog(), config_search_dirs());
}

std::vector<workload_spec> filter_workloads(const suite& s, const std::string& filter) {
  std::vector<workload_spec> out;
  for (const auto& w : s.workloads)
    if (id_matches(w.id, filter)) out.push_back(w);
  if (out.empty())
    throw input_error(fmt::format("--filter \"{}\" matches none of the {} workloads of suite {} ({})",
                                  filter, s.workloads.size(), s.name, s.source));
  return out;
}

}  // namespace cudabench::cli
