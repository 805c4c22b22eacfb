// `ab --devices all|0,2,5`: the interleaved A/B on every listed GPU at the same time, one `ab`
// process per GPU (`ab BUILDS --device N -o DIR/HOST-gpu-N`, its own session, its own
// comparison), then one fleet per build (DIR/HOST-fleet-A.json, ...: outlier GPUs per build) and
// their comparison with the per-GPU values as replicates (DIR/compare.md, compare.json). The
// sides' fleets share one session id: every GPU ran them interleaved.
#pragma once
#include <string>
#include <vector>

#include "cli/run_args.hpp"
#include "cudabench/compare.hpp"

namespace cudabench::cli {

struct ab_args {
  run_args run;
  std::vector<std::string> sides;
  std::string labels;
  std::string output_dir;
  bool hold_tuning = false;
  bool resume = false;      // continue the ab in output_dir (ab_resume.hpp)
  double time_limit_s = 0;  // > 0: start no round expected to end later than this after ab began (round_budget.hpp)
  std::string format = "table";
  double alpha = 0.05, threshold = 2.0, power = 0.8;
  bool fail_on_regression = false;
};

// Exit code: 0; 1 with --fail-on-regression when a GPU's comparison or the fleets' regressed;
// 3 when a GPU produced no comparison (the others are kept); 130 when interrupted.
int run_ab_devices(const ab_args& a, const suite& s, const std::vector<std::string>& labels);

// Shared with cmd_ab.cpp and ab_resume.cpp.
std::string session_id();
std::string side_name(std::size_t i);                                         // "A", "B", ...
std::string round_file(const std::string& dir, std::size_t side, int round);  // DIR/rounds/B-3.json (round from 1)
std::vector<std::string> split_labels(const std::string& s);
void write_text(const std::string& path, const std::string& text);
std::string report_text(const comparison& c, const std::string& format, bool color);

}  // namespace cudabench::cli
