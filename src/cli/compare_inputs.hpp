// What `compare` (and `ab --devices`) read: a result file, or a fleet file taken as a result file
// whose rounds are its GPUs (fleet_compare.hpp: compare's statistics stay as they are), and the
// per-GPU detail of fleets on request (`compare --per-gpu`).
#pragma once
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cudabench/compare.hpp"
#include "cudabench/fleet.hpp"
#include "cudabench/result.hpp"

namespace cudabench::cli {

struct compare_input {
  result_file result;               // what compare judges
  std::optional<fleet_file> fleet;  // set when the file is a fleet
};

// input_error when the file is missing or malformed, or is neither kind.
compare_input read_compare_input(const std::string& path);

// Writes the comparison of `inputs` (already compared as `fleet_cmp`) followed by one comparison
// per GPU that every file has (matched by host and GPU index) in `format`; json becomes one object
// {"fleet": ..., "per_gpu": [{"gpu": "node01 GPU 3", "comparison": ...}], "not_in_every_file": [...]}.
// input_error when an input is not a fleet.
void report_per_gpu(const std::vector<compare_input>& inputs, const std::vector<std::string>& sources,
                    const comparison& fleet_cmp, const compare_options& opt, const std::string& format, bool color,
                    std::ostream& out);

}  // namespace cudabench::cli
