// Private pieces of the HTML report (report_html.hpp), one section per file:
//   report_html_env.cpp       the environment table and its differences
//   report_html_bars.cpp      the comparison: one bar per row with its interval, by verdict
//   report_html_samples.cpp   a workload's samples per repetition/round, per file side by side
//   report_html_clocks.cpp    SM clock and board power per repetition, throttling marked
//   report_html_summary.cpp   one file: a table of every workload (median, spread, status, clocks)
//   report_html_workload.cpp  which workloads and metrics are shown, and one workload's card
//   report_html.cpp           the page: header, sections in order
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "cudabench/compare.hpp"
#include "cudabench/result.hpp"

namespace cudabench::report_html_detail {

// One workload as the page shows it: the file's record per file (null where absent) and the
// metrics to plot (the --metric list where present, else the headline metric).
struct workload_view {
  std::string id, kind;
  const nlohmann::ordered_json* params = nullptr;
  std::vector<const workload_result*> per_file;
  std::vector<std::string> metrics;
  bool throttled() const;
};

std::vector<workload_view> collect_workloads(const std::vector<result_file>& files, const compare_options& options);
// environment.label per file, repeated labels made unique with " (2)" as compare does.
std::vector<std::string> file_labels(const std::vector<result_file>& files);
// "c0".."c7": the CSS colour class of file i.
std::string color_class(std::size_t file);

std::string environment_section(const std::vector<result_file>& files, const std::vector<std::string>& sources,
                                const std::vector<std::string>& labels, const comparison* cmp);
std::string comparison_section(const comparison& cmp);
// Single-file reports: one row per workload and metric, linked to the cards.
std::string summary_section(const std::vector<workload_view>& workloads);
// The samples chart of one metric of a workload; empty when no file has samples of it.
std::string samples_chart(const workload_view& w, const std::string& metric, const std::vector<std::string>& labels);
// SM clock and board power charts per repetition; empty when no file recorded them.
std::string clock_charts(const workload_view& w, const std::vector<result_file>& files,
                         const std::vector<std::string>& labels);
// One workload's <article>: title, verdict badges, charts, status table. `index` makes its anchor.
std::string workload_card(const workload_view& w, std::size_t index, const std::vector<result_file>& files,
                          const std::vector<std::string>& labels, const comparison* cmp);

}  // namespace cudabench::report_html_detail
