// "did you mean compare?" for a mistyped subcommand (`cudabench comapre a b`): `run` takes no
// positional argument, so a first word that names no subcommand is a typo, not a run option.
#pragma once
#include <string>
#include <vector>

namespace cudabench::cli {

// The candidate closest to `word` by edit distance (a swap of two neighbouring letters counts as
// one edit), when it is close enough to be a likely typo (at most 2 edits, and fewer than half the
// word's length); "" otherwise.
std::string closest_name(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace cudabench::cli
