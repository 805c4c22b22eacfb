// What `cudabench run` prints on stdout once a suite has run: one row per metric of each workload
// (median, spread, min/max), non-ok workloads with their status and message. The reporters of
// report.hpp print it; this is the format choice and a string-returning front. Host-only.
#pragma once
#include <string>

#include "cudabench/format_value.hpp"
#include "cudabench/result.hpp"

namespace cudabench {

enum class summary_format { table, markdown, csv, json };
summary_format parse_summary_format(const std::string& s);  // throws input_error
const char* to_string(summary_format f);                    // "table", "markdown", "csv", "json"

std::string format_run_summary(const result_file& r, summary_format f);

}  // namespace cudabench
