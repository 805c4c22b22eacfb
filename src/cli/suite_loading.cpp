// See suite_loading.hpp.
#include "cli/suite_loading.hpp"

#include <fmt/core.h>

#include "cli/commands.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/id_filter.hpp"
#include "cudabench/kind_description.hpp"

namespace cudabench::cli {

suite load_cli_suite(const std::string& name_or_path, std::uint64_t max_workloads) {
  suite_limits limits;
  limits.max_workloads = max_workloads;
  return load_suite(name_or_path, builtin_kinds(), config_search_dirs(), limits);
}

void add_max_workloads_option(CLI::App& cmd, std::uint64_t& into) {
  cmd.add_option("--max-workloads", into,
                 fmt::format("Refuse a suite whose sweeps expand to more workloads than this (default {})",
                             default_max_workloads))
      ->check(CLI::Validator(
          [](std::string& v) -> std::string {
            const bool digits = !v.empty() && v.find_first_not_of("0123456789") == std::string::npos;
            if (!digits || v.find_first_not_of('0') == std::string::npos)
              return "expected a positive whole number of workloads, got " + v;
            return "";
          },
          "N"));
}

std::vector<workload_spec> filter_workloads(const suite& s, const std::string& filter) {
  std::vector<workload_spec> out;
  for (const auto& w : s.workloads)
    if (id_matches(w.id, filter)) out.push_back(w);
  if (out.empty())
    throw input_error(fmt::format("--filter \"{}\" matches none of the {} workloads of suite {} ({})", filter,
                                  s.workloads.size(), s.name, s.source));
  return out;
}

}  // namespace cudabench::cli
