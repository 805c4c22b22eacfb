// JSON: the whole comparison for scripts and dashboards, documented by
// configs/schema/compare.schema.json (compare_schema_version "1.3"; 1.3 added cycles and energy);
// for a run summary, the result file itself.
#include <cmath>

#include <nlohmann/json.hpp>

#include "cudabench/report.hpp"
#include "cudabench/text_safety.hpp"
#include "report_common.hpp"

namespace cudabench {

void json_reporter::report(const comparison& c, std::ostream& out) const {
  using oj = nlohmann::ordered_json;
  oj j;
  j["compare_schema_version"] = "1.3";
  j["alpha"] = c.alpha;
  j["threshold_pct"] = c.threshold_pct;
  j["power"] = c.power;
  j["noise_summary"] = c.noise_summary;
  j["test"] =
      "between-round moderated t on per-round medians (measured row noise as prior, measured session noise with its df "
      "unless interleaved), "
      "Holm-corrected";
  j["method"] = c.method;
  j["single_round_warning"] = c.single_round_warning ? oj(*c.single_round_warning) : oj(nullptr);
  oj files = oj::array();
  for (std::size_t i = 0; i < c.labels.size(); ++i)
    files.push_back({{"label", c.labels[i]},
                     {"source", c.sources[i]},
                     {"role", i == 0 ? "baseline" : "candidate"},
                     {"rounds", i < c.rounds.size() ? c.rounds[i] : 1},
                     {"same_session_as_baseline", i == 0 ? oj(nullptr) : oj(bool(c.same_session[i - 1]))}});
  j["files"] = std::move(files);
  j["gpu_warning"] = c.gpu_warning ? oj(*c.gpu_warning) : oj(nullptr);
  if (c.library_warning) j["library_warning"] = *c.library_warning;
  oj env = oj::array();
  for (const auto& d : c.env_differences) env.push_back({{"field", d.field}, {"values", d.values}});
  j["environment_differences"] = std::move(env);

  oj rows = oj::array();
  for (const auto& r : c.rows) {
    oj row;
    row["id"] = r.id;
    row["kind"] = r.kind;
    row["metric"] = r.metric;
    row["unit"] = r.unit;
    row["better"] = r.direction == better::lower ? "lower" : "higher";
    row["name"] = r.name;
    oj values = oj::array();
    for (const auto& cell : r.cells) {
      if (!cell.present) {
        values.push_back(nullptr);
        continue;
      }
      oj v{{"status", to_string(cell.state)}};
      if (cell.state == status::ok) {
        v["median"] = cell.median;
        v["samples"] = cell.samples;
        v["round_medians"] = cell.round_medians;
        if (cell.sm_mhz) v["sm_mhz"] = *cell.sm_mhz;
        if (cell.power_w) v["power_w"] = *cell.power_w;
        if (cell.cycles) v["cycles"] = *cell.cycles;
        if (cell.energy_j) v["energy_j"] = *cell.energy_j;
      } else {
        v["message"] = cell.message;
      }
      v["throttled"] = cell.throttled;
      values.push_back(std::move(v));
    }
    row["values"] = std::move(values);
    oj changes = oj::array();
    for (std::size_t k = 0; k < r.changes.size(); ++k) {
      const auto& ch = r.changes[k];
      if (!r.cells[0].present && !r.cells[k + 1].present) {
        changes.push_back(nullptr);
        continue;
      }
      auto opt = [](const std::optional<double>& v) { return v && std::isfinite(*v) ? oj(*v) : oj(nullptr); };
      changes.push_back({{"candidate", c.labels[k + 1]},
                         {"verdict", to_string(ch.outcome)},
                         {"change_pct", opt(ch.change_pct)},
                         {"ci_low_pct", opt(ch.ci_low_pct)},
                         {"ci_high_pct", opt(ch.ci_high_pct)},
                         {"p_value", opt(ch.p_value)},
                         {"p_adjusted", opt(ch.p_adjusted)},
                         {"mde_pct", opt(ch.mde_pct)},
                         {"cycles_change_pct", opt(ch.cycles_change_pct)},
                         {"energy_change_pct", opt(ch.energy_change_pct)},
                         {"rounds_baseline", ch.rounds_baseline},
                         {"rounds_candidate", ch.rounds_candidate},
                         {"note", ch.note},
                         {"context", ch.context},
                         {"tuning_differs", ch.tuning_differs}});
    }
    row["changes"] = std::move(changes);
    row["noise"] = {{"round_sd", r.noise.round_sd},         {"round_df", r.noise.round_df},
                    {"round_source", r.noise.round_source}, {"session_sd", r.noise.session_sd},
                    {"session_df", r.noise.session_df},     {"session_source", r.noise.session_source},
                    {"sessions", r.noise.sessions}};
    rows.push_back(std::move(row));
  }
  j["rows"] = std::move(rows);

  oj summary = oj::array();
  for (std::size_t k = 0; k < c.candidates(); ++k) {
    const auto n = c.counts(k);
    oj s{{"candidate", c.labels[k + 1]}};
    for (std::size_t v = 0; v < verdict_count; ++v) s[to_string(static_cast<verdict>(v))] = n[v];
    summary.push_back(std::move(s));
  }
  j["summary"] = std::move(summary);
  j["regression"] = c.any_regression();
  out << json_text_safe(j.dump(2)) << '\n';
}

void json_reporter::report(const result_file& r, std::ostream& out) const {
  out << json_text_safe(to_json(r).dump(2)) << '\n';
}

}  // namespace cudabench
