// Private helpers shared by the report_*.cpp reporters: number, change and verdict text, the
// summary line, and display-width padding for UTF-8 names ("4096³", "8192×4096").
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "cudabench/compare.hpp"
#include "cudabench/format_value.hpp"  // the medians in cells
#include "cudabench/result.hpp"

namespace cudabench::report_detail {

std::string format_change(std::optional<double> pct);  // "+4.8%", "-6.1%", "n/a"
// The change column: format_change, or "-" for a row that has no change (failed, only in one).
std::string change_text(const compare_change& ch);
std::string format_p(std::optional<double> p);  // "0.0079", "<0.0001", "-"
// The confidence interval of the change: "[+2.1, +7.5]" (percent), "" when there is none.
std::string format_ci(const compare_change& ch);
// "95%" at alpha 0.05: the level of the interval compare computes, (1 - alpha).
std::string ci_level(const comparison& c);
std::string verdict_text(verdict v);  // "improved", "only in baseline", ...
// A file's cell: the median ("0.2100", "*" appended when throttled), the status in capitals when
// the workload failed ("OOM"), "-" when absent.
std::string cell_text(const compare_cell& c);
// "CUDA 12.4 vs CUDA 12.1: 3 improved, 1 regressed, 10 unchanged, 2 inconclusive"
std::string summary_line(const comparison& c, std::size_t candidate);
// The minimum detectable change: "1.2%", "-" when there is none (deterministic or untested row).
std::string format_mde(std::optional<double> pct);
// "minimum detectable change (80% power): median 1.1% over 40 tested rows, 31 within 2%;
// largest 56% (matmul fp16 1024³)", so a run of "unchanged" says what it could have seen.
std::string mde_line(const comparison& c, std::size_t candidate);
// The cycles and energy columns: "+1.4%" (positive = fewer per run), "-" when not measured.
std::string format_fewer(std::optional<double> pct);
// "cycles +1.4%, energy -3.0%" for one candidate's row, "" when neither was measured on both sides.
std::string cycles_energy_text(const compare_change& ch);
inline constexpr const char* cycles_energy_legend =
    "cycles, energy: change of the medians per run, positive = fewer (cycles: sm_cycles where both files have it, "
    "else NVML's; docs/statistics.md)";
// "alpha 0.05, threshold 2%"
std::string settings_text(const comparison& c);
bool any_throttled(const comparison& c);
inline constexpr const char* throttle_footnote =
    "* clocks throttled during that run's repetitions (clocks.throttled or NVML throttle reasons)";
// Lines "<row name>: <note>" for failed rows, one per candidate with a failure.
std::vector<std::string> failure_notes(const comparison& c);
// Lines "<row name>: SM clock 1665 -> 1425 MHz, power 700 -> 690 W; tuning differs" for rows whose
// verdict is a change (improved, regressed), so a power-state difference or a
// different tuner pick is visible beside it.
std::vector<std::string> context_notes(const comparison& c);
// Lines "<row name>: <why>" for rows whose change column reads "n/a" (a zero baseline, medians
// too far apart for a percentage), so the verdict beside "n/a" is never left unexplained.
std::vector<std::string> na_change_notes(const comparison& c);

// One line of the run summary (run_summary.hpp): a metric of an ok workload, or a workload that did
// not end ok (status, and its message in `max`). Strings already passed through terminal_text.
struct run_row {
  std::string workload, status, metric, median, unit, spread, min, max;
};
std::vector<run_row> run_rows(const result_file& r);
bool any_throttled(const result_file& r);  // any workload's clocks throttled
inline constexpr const char* run_throttle_footnote = "* clock throttling was seen during this workload's repetitions";

// One CSV field (RFC 4180): quoted when it holds a comma, quote or line break, quotes doubled.
std::string csv_field(const std::string& s);

// The text reporters (table, markdown, csv) show labels, file names, ids and messages that come
// from result files and may hold control characters (an ANSI escape in a label). When any
// displayed string has one, a copy with every such string passed through terminal_text
// (text_safety.hpp); otherwise nullopt, and the comparison is printed as it is.
std::optional<comparison> text_safe(const comparison& c);

std::size_t display_width(const std::string& utf8);  // code points (our names have no wide glyphs)
std::string pad(const std::string& s, std::size_t width, bool right_align);

}  // namespace cudabench::report_detail
