// The workload-id filter every subcommand's --filter takes (run, list, compare, report, history,
// noise): globs over result and suite ids, so "matmul/*" means the same in each.
#pragma once
#include <string>

namespace cudabench {

// `*` and `?` glob against ids (`*` crosses slashes); an empty pattern matches everything.
// Several patterns may be comma-separated (spaces around them ignored); an id is kept if any
// matches.
bool id_matches(const std::string& id, const std::string& patterns);

}  // namespace cudabench
