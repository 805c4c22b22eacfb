// What `cudabench run` prints on stdout once a suite has run: one row per metric of each workload
// (median, spread, min/max), non-ok workloads with their status and message. Host-only.
#pragma once
#include <string>

#include "cudabench/result.hpp"

namespace cudabench {

enum class summary_format { table, markdown, csv, json };
summary_format parse_summary_format(const std::string& s);  // throws input_error

std::string format_run_summary(const result_file& r, summary_format f);

// Shortest readable number: 3 significant digits below 100, no exponent for everyday values.
std::string format_value(double v);

}  // namespace cudabench
