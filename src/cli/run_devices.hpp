// `run --devices all|0,2,5`: the suite on every listed GPU at the same time, one process per GPU
// (each with its own CUDA context and tuning: the child is `run --device N -o DIR/HOST-gpu-N.json`,
// which runs its own rounds with --rounds), then one fleet result DIR/HOST-fleet.json: per workload
// the median across GPUs, the spread and the outlier GPUs (fleet.hpp).
#pragma once
#include "cli/run_args.hpp"
#include "cudabench/run_summary.hpp"
#include "cudabench/suite.hpp"

namespace cudabench::cli {

// Exit code: 0; 3 when a GPU produced no result (the others are kept and summarised); 130 when
// interrupted; with --strict, 3 when a GPU's run ended with an error. Throws runtime_failure when
// no GPU produced anything.
int execute_devices(const run_args& a, const suite& s, summary_format out_format);

}  // namespace cudabench::cli
