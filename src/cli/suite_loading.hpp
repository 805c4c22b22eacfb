// Suite loading for the subcommands: the registry's kinds, the config search path, --filter.
#pragma once
#include <string>
#include <vector>

#include "cudabench/suite.hpp"

namespace cudabench::cli {

// load_suite() with registry_catalog() and config_search_dirs(). Throws input_error.
suite load_cli_suite(const std::string& name_or_path);

// The workloads whose id matches `filter` (id_matches), in suite order. A non-empty filter that
// matches nothing is an input_error naming the filter and the suite, so a typo never yields an
// empty run.
std::vector<workload_spec> filter_workloads(const suite& s, const std::string& filter);

}  // namespace cudabench::cli
