// Suite loading for the subcommands: the built-in kinds (src/kinds/catalog.cpp), the config search
// path, --filter.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cudabench/suite.hpp"

namespace cudabench::cli {

// load_suite() with builtin_kinds() and config_search_dirs(); `max_workloads` is the
// --max-workloads option. Throws input_error.
suite load_cli_suite(const std::string& name_or_path, std::uint64_t max_workloads = default_max_workloads);

// Adds --max-workloads N to `cmd`, stored in `into`.
void add_max_workloads_option(CLI::App& cmd, std::uint64_t& into);

// The workloads whose id matches `filter` (id_matches), in suite order. A non-empty filter that
// matches nothing is an input_error naming the filter and the suite, so a typo never yields an
// empty run.
std::vector<workload_spec> filter_workloads(const suite& s, const std::string& filter);

}  // namespace cudabench::cli
