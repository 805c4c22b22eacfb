// Private parts of compare_results (compare.hpp), one file each: what differs between the files'
// environments (compare_env.cpp), which rows there are and what each file holds for them
// (compare_match.cpp), the round noise of rows no measurement knows, learned from the comparison's
// own rows (compare_pooled_noise.cpp); compare.cpp judges the rows (statistics, verdicts).
#pragma once
#include <string>
#include <vector>

#include "cudabench/compare.hpp"
#include "cudabench/noise_floor.hpp"

namespace cudabench::compare_detail {

// Fills `out.labels` (a repeated label gets " (2)"), `out.env_differences`, `out.gpu_warning` and
// `out.same_session` (one interleaved `cudabench ab` session with the baseline).
void describe_files(const std::vector<result_file>& files, comparison& out);

struct matched_rows {
  std::vector<compare_row> rows;   // cells filled, no changes yet
  std::vector<noise_model> noise;  // each row's noise (row_noise.hpp), parallel to rows
  bool in_common = false;          // some workload is in the baseline and a candidate
};

// One row per (workload, metric): workload ids in the baseline's order, then those only candidates
// have; the metric the options ask for (the first one otherwise). Throws input_error for samples
// that cannot be (sample_rules.hpp) or round indices that do not match the samples.
matched_rows match_rows(const std::vector<result_file>& files, const std::vector<std::string>& sources,
                        const compare_options& opt);

// The round prior of the rows no measurement knows, learned from this comparison's rows (every
// file's rounds of every row as evidence; pooled_noise.hpp). Sets `rows[i].noise` and `noise[i]`
// alike. Returns how many rows got a pooled prior.
int pool_round_noise(std::vector<compare_row>& rows, std::vector<noise_model>& noise);

// Two different workloads must never share a readable name: those fall back to their id.
void make_names_unique(std::vector<compare_row>& rows);

}  // namespace cudabench::compare_detail
