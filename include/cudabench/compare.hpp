// Compare 2..N result files: match workloads by id (the first file is the baseline), and for each
// chosen metric give the medians, the change in % (positive = better) with its confidence
// interval, a between-round p-value (round_test.hpp), Holm-adjusted over the rows
// (multiple_testing.hpp), and a verdict. Also the environment differences between the files, the
// clock/power context of changed rows and tuning choices that differ. Host-only; the output
// formats live in report.hpp; docs/statistics.md explains the method.
#pragma once
#include <array>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cudabench/noise_floor.hpp"
#include "cudabench/result.hpp"
#include "cudabench/row_noise.hpp"

namespace cudabench {

enum class verdict { improved, regressed, unchanged, inconclusive, only_in_baseline, only_in_candidate, failed };
inline constexpr std::size_t verdict_count = 7;
const char* to_string(verdict v);

// The smallest --alpha compare, ab and report take: Holm divides it by the number of rows and the
// interval and mde need t quantiles at 1 - alpha / (2 rows); below ~1e-15 those round to 1 in
// double precision and the statistics stop meaning anything, so the bound sits well above that.
inline constexpr double min_alpha = 1e-6;

struct compare_options {
  double alpha = 0.05;   // family-wise significance level (Holm-adjusted p < alpha is significant)
  double prior_df = 10;  // most weight of a row's prior round noise in the between-round test
  double power = 0.8;    // for each row's minimum detectable change (mde_pct)
  // Where each row's noise comes from (row_noise.hpp): the built-in committed prior, and a history
  // when `compare --history DB` gives one.
  noise_evidence noise = default_noise_evidence();
  double threshold_pct = 2.0;                         // |change| below this is `unchanged`
  std::vector<std::string> metrics;                   // empty: each workload's headline (first) metric
  std::function<bool(const std::string& id)> filter;  // empty: every workload
};

// One file's side of a row.
struct compare_cell {
  bool present = false;       // the workload (and, if ok, the metric) is in this file
  status state = status::ok;  // of the workload
  std::string message;        // the workload's message when not ok
  double median = 0;          // valid when present && state == ok
  std::vector<double> samples;
  std::vector<int> sample_rounds;     // parallel to samples (empty: one round)
  std::vector<double> round_medians;  // one per round
  bool throttled = false;             // clocks.throttled or any throttle reason in this file's run
  std::optional<double> sm_mhz;       // median SM clock over the repetitions, when recorded
  std::optional<double> power_w;      // median board power over the repetitions, when recorded
  // Medians of the workload's `cycles` (Mcycles per run, NVML's clock), `sm_cycles` (the SMs' own
  // counters) and `energy_j` (J per run) metrics, when it has them (energy_metrics.hpp): what the
  // row's time would be without the clock, and its energy.
  std::optional<double> cycles, sm_cycles, energy_j;
  nlohmann::ordered_json tuning = nlohmann::ordered_json::object();  // the workload's tuning choices
};

// One candidate against the baseline.
struct compare_change {
  verdict outcome = verdict::unchanged;
  std::optional<double> change_pct;  // positive = better; none when not computable (zero baseline, absent, failed)
  std::optional<double> ci_low_pct, ci_high_pct;  // (1 - alpha) confidence interval of change_pct
  std::optional<double> p_value;     // between-round test, before adjustment; none without samples on both sides
  std::optional<double> p_adjusted;  // Holm-adjusted over this candidate's tested rows
  int rounds_baseline = 0, rounds_candidate = 0;  // rounds behind each side's median
  // The smallest true change (%) this row's test finds with probability compare_options::power
  // after Holm over the tested rows: what "unchanged" or "inconclusive" could have seen. None for
  // rows judged by the threshold alone (deterministic) or not tested.
  std::optional<double> mde_pct;
  std::string note;  // why: "candidate: oom: ...", "baseline median is 0", ...
  // How the workload's median cycles and energy per run moved, in %, positive = fewer (the sign of
  // change_pct for a lower-is-better metric); none unless both sides have them. Cycles are
  // `sm_cycles` where both sides have it (counted over the repetition), else `cycles` (NVML's
  // clock sampled after it). A reading aid beside
  // the verdict, which stays the headline metric's: cycles that stay put while the time moved say
  // the clock moved, not the code.
  std::optional<double> cycles_change_pct, energy_change_pct;
  std::string context;  // beside a changed row: "SM clock 1665 -> 1425 MHz, power 700 -> 699 W, cycles 0.3% fewer"
  bool tuning_differs = false;  // baseline and candidate tuners chose differently
};

struct compare_row {
  std::string id, kind, metric, unit;
  better direction = better::lower;
  std::string name;                     // readable: "matmul fp16 4096³ (ms)"
  std::vector<compare_cell> cells;      // one per file, baseline first
  noise_model noise;                    // the noise it is judged with, and its sources (row_noise.hpp)
  std::vector<compare_change> changes;  // one per candidate (files 1..N-1)
  bool base_has_workload = false;       // the baseline has this workload (perhaps not this metric)
  std::vector<bool> cand_has_workload;  // likewise per candidate
  bool throttled() const;
};

// One environment field whose value differs between the files.
struct env_difference {
  std::string field;                // "device", "driver_version", "cuda_toolkit", ...
  std::vector<std::string> values;  // one per file; "-" when the file does not say
};

struct comparison {
  std::vector<std::string> labels;   // environment.label per file, duplicates made unique (" (2)")
  std::vector<std::string> sources;  // file names as given
  std::vector<int> rounds;           // rounds per file
  // Per candidate: true when it and the baseline come from one interleaved `cudabench ab` session
  // (result_file::interleave.session), so between-session noise cancels.
  std::vector<bool> same_session;
  // Per candidate: the factor (>= 1) by which the rounds were noisier than the kinds' documented
  // round noise, pooled over all rows; the prior of every row is scaled by it.
  std::vector<double> noise_scale;
  // Rows whose round prior was learned from this comparison's rows of the same kind (no committed
  // session and no history of them on this GPU model; docs/statistics.md).
  int pooled_rows = 0;
  double alpha = 0.05, threshold_pct = 2.0, power = 0.8;
  // "noise: 30 rows measured (committed 30, history 0), 12 fallback", for every report.
  std::string noise_summary;
  std::string method;  // one line naming the test and the correction, for every report
  // Set when a file has a single round: its between-run noise was not measured, so rows are judged
  // against the kinds' documented noise floors alone.
  std::optional<std::string> single_round_warning;
  std::vector<env_difference> env_differences;
  std::optional<std::string> gpu_warning;  // set when the files ran on different GPU models
  // Set when a file's run loaded libraries of two CUDA releases (environment.library_mix).
  std::optional<std::string> library_warning;
  std::vector<compare_row> rows;

  std::size_t candidates() const { return labels.empty() ? 0 : labels.size() - 1; }
  // Does any row have a cycles or energy change (files recorded with NVML's clock and energy)?
  bool has_cycles_or_energy() const;
  // counts[verdict] for candidate c (0-based among candidates)
  std::array<int, verdict_count> counts(std::size_t candidate) const;
  // A `regressed` row, or a workload ok in the baseline that is not ok in a candidate.
  bool any_regression() const;
};

// `sources` names the files in messages (same length as `files`). Throws input_error when there
// are fewer than two files, a metric sample is empty or not finite, or no workload is in the
// baseline and any candidate (after the filter).
comparison compare_results(const std::vector<result_file>& files, const std::vector<std::string>& sources,
                           const compare_options& options);

// The readable row name: "matmul fp16 4096³ (ms)", "matmul fp16 8192×4096×1024 (TFLOP/s)",
// "llm_decode llama-2-7b fp16 128→256 · ttft_ms (ms)". The metric name is shown when the unit
// alone is ambiguous within the workload (`units_of_workload` lists the units of all its
// metrics); kinds it does not know get "<id> · <metric> (<unit>)".
std::string readable_name(const std::string& id, const std::string& kind, const nlohmann::ordered_json& params,
                          const std::string& metric, const std::string& unit,
                          const std::vector<std::string>& units_of_workload);

}  // namespace cudabench
