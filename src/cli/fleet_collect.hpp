// What `fleet collect` reads: fleet files (a host's `run --devices` summary, or an earlier
// collection) and plain per-GPU result files, from directories (their *.json, not recursing, so
// rounds/ and *.rounds/ are left alone) or named one by one.
#pragma once
#include <string>
#include <vector>

#include "cudabench/fleet.hpp"

namespace cudabench::cli {

struct collected {
  std::vector<fleet_gpu> gpus;
  std::vector<std::string> skipped;   // "FILE: why" for JSON files that are neither kind
  std::vector<std::string> files;     // the files read (the output may be none of them)
  std::vector<std::string> warnings;  // e.g. one GPU UUID under two names
};

// A GPU is taken from a fleet file when one has it, else from its per-GPU result file (a host
// whose summary was never written still counts). A result file's GPU is its HOST-gpu-N file name,
// else environment.hostname and environment.device.index. Every file goes through the checked
// readers (result.hpp, fleet.hpp). `output`, when it is an earlier fleet file in an input
// directory, is not read (it is regenerated); when it is a result file, input_error (it would be
// written over). input_error also for a path that does not exist, or the same GPU in two fleet files.
collected collect_gpus(const std::vector<std::string>& inputs, const std::string& output);

}  // namespace cudabench::cli
