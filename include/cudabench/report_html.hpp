// `cudabench report`: one self-contained HTML page for one or more result files. It shows the
// environment (and, for several files, what differs, with the GPU-model warning), every workload's
// samples per repetition and round for every file side by side with the median and spread, its
// validation status and message, clocks/power/throttling per repetition, and, for two or more
// files, the comparison (compare_results with the same options as `compare`: the same verdicts)
// as one bar per row with its confidence interval, coloured by verdict, sorted by effect.
// Plots are inline SVG written by svg_plot.hpp; there is no script and nothing is fetched.
// docs/report.md describes the page. Host-only.
#pragma once
#include <ostream>
#include <string>
#include <vector>

#include "cudabench/compare.hpp"
#include "cudabench/result.hpp"

namespace cudabench {

struct html_report_input {
  std::vector<result_file> files;    // the first is the baseline when there are several
  std::vector<std::string> sources;  // file names as given, one per file
  compare_options options;           // metrics and filter apply to the plots too
  std::string title;                 // empty: "cudabench report"
};

// Writes the page. With two or more files it calls compare_results(), so it throws input_error in
// the same cases as `compare` (nothing in common, a NaN sample, ...).
void write_html_report(const html_report_input& in, std::ostream& out);

}  // namespace cudabench
