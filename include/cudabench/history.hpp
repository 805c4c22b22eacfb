// A history read for display and checks: runs in time order, one series per workload and metric
// (the headline metric unless --metric names others) with its steps (change_point.hpp), and the
// steps that the newest run brought (what `history check` / `nightly.sh --history` fail on).
// Formats: history_report.cpp (table, markdown, csv, json) and history_html.cpp. Host-only.
#pragma once
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "cudabench/change_point.hpp"
#include "cudabench/history_store.hpp"

namespace cudabench {

struct history_series {
  std::string workload_id, kind, metric, name, unit;
  better direction = better::lower;
  // One entry per run (parallel to history_view::runs): the value (none when the run has no ok
  // value: absent, failed) and the run's status for this workload (none when absent).
  std::vector<std::optional<double>> values;
  std::vector<std::optional<status>> states;
  std::vector<bool> throttled;
  struct step {
    std::size_t run = 0;       // index into history_view::runs of the first run on the new level
    std::size_t previous = 0;  // the last run with a value before it
    change_point where;        // in the series' own (valued-only) indexing
    bool worse = false;        // the step is in the metric's bad direction
  };
  std::vector<step> steps;
};

struct history_options {
  std::function<bool(const std::string&)> filter;  // workload ids; empty: all
  std::vector<std::string> metrics;                // empty: each workload's headline metric
  change_point_options detection;
};

struct history_view {
  std::vector<history_run> runs;  // oldest first
  std::vector<history_series> series;
  history_options options;
};

// Throws input_error when a --metric names nothing stored, or the filter matches nothing.
history_view build_history(const history_store& store, const history_options& options);

// "commit abc -> def, driver 580.1 -> 580.2": the recorded facts that differ between two runs;
// "no recorded change (same commit, toolkit, driver, libraries, GPU)" when none.
std::string run_differences(const history_run& before, const history_run& after);
// "matmul fp16 8192³ (TFLOP/s) stepped -7.0% (worse) at 2026-12-14T02:30:00Z (run 15; commit abc -> def)"
std::string describe_step(const history_view& h, const history_series& s, const history_series::step& st);

// A step found now that was not found without the newest run (same first run on the new level).
struct new_step {
  std::size_t series = 0;
  history_series::step step;
};
std::vector<new_step> steps_new_at_newest_run(const history_view& h);

// Writes the view: "table", "markdown", "csv", "json" or "html" (input_error otherwise).
void write_history(const history_view& h, const std::string& format, std::ostream& out);
// The html format alone (history_html.cpp): one line chart per series, steps marked.
void write_history_html(const history_view& h, std::ostream& out);
// The run list (`history list`): "table", "csv" or "json".
void write_history_runs(const std::vector<history_run>& runs, const std::string& format, std::ostream& out);

}  // namespace cudabench
