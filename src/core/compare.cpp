// See compare.hpp and docs/statistics.md. Verdict rules:
//   either side not ok                                  -> failed (the note says which side and why)
//   |change| <  threshold                               -> unchanged
//   |change| >= threshold, Holm-adjusted p <  alpha     -> improved / regressed (by the sign of the change)
//   |change| >= threshold, Holm-adjusted p >= alpha     -> inconclusive (too noisy to tell)
// p comes from the between-round test on per-round medians (round_test.hpp), with the kind's
// documented between-round noise as prior and, unless both files come from one interleaved
// `cudabench ab` session, its between-session noise as known extra variance (noise_floor.hpp);
// Holm's adjustment runs over every tested row of one candidate, so an A/A comparison of many rows
// raises a false alarm with probability at most alpha. A metric with no spread on either side (peak memory, weight bytes: deterministic, often a
// single sample) has no sampling noise, so its change is judged by the threshold alone.
// A zero baseline median has no percentage change: equal medians are unchanged, otherwise the
// direction of the difference decides when significant and it is inconclusive when not.
#include "cudabench/compare.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <stdexcept>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "cudabench/errors.hpp"
#include "cudabench/multiple_testing.hpp"
#include "cudabench/noise_floor.hpp"
#include "cudabench/round_test.hpp"
#include "cudabench/sample_rules.hpp"
#include "cudabench/stats.hpp"

namespace cudabench {

const char* to_string(verdict v) {
  switch (v) {
    case verdict::improved: return "improved";
    case verdict::regressed: return "regressed";
    case verdict::unchanged: return "unchanged";
    case verdict::inconclusive: return "inconclusive";
    case verdict::only_in_baseline: return "only_in_baseline";
    case verdict::only_in_candidate: return "only_in_candidate";
    case verdict::failed: return "failed";
  }
  return "failed";
}

bool compare_row::throttled() const {
  for (const auto& c : cells)
    if (c.throttled) return true;
  return false;
}

std::array<int, verdict_count> comparison::counts(std::size_t candidate) const {
  std::array<int, verdict_count> out{};
  for (const auto& r : rows) {
    // A row that neither the baseline nor this candidate has (3+ files) is not this candidate's.
    if (!r.cells[0].present && !r.cells[candidate + 1].present) continue;
    ++out[static_cast<std::size_t>(r.changes[candidate].outcome)];
  }
  return out;
}

bool comparison::any_regression() const {
  for (const auto& r : rows)
    for (std::size_t c = 0; c < r.changes.size(); ++c) {
      if (r.changes[c].outcome == verdict::regressed) return true;
      const auto& base = r.cells[0];
      const auto& cand = r.cells[c + 1];
      if (base.present && base.state == status::ok && cand.present && cand.state != status::ok) return true;
    }
  return false;
}

namespace {

std::string env_value(const result_file& f, const std::string& field) {
  const nlohmann::ordered_json* v = nullptr;
  auto get = [](const nlohmann::ordered_json& obj, const char* key) -> const nlohmann::ordered_json* {
    if (!obj.is_object()) return nullptr;
    auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
  };
  if (field == "device") {
    if (auto* d = get(f.environment, "device")) v = get(*d, "name");
  } else if (field == "cuda_toolkit" || field == "cuda_architectures" || field == "build_type") {
    v = get(f.build, field.c_str());
  } else {
    v = get(f.environment, field.c_str());
  }
  if (!v || v->is_null()) return "-";
  if (v->is_string()) return v->get<std::string>().empty() ? "-" : v->get<std::string>();
  return v->dump();
}

std::string side_failure(const char* side, const compare_cell& c) {
  std::string s = fmt::format("{}: {}", side, to_string(c.state));
  if (!c.message.empty()) s += fmt::format(" ({})", c.message);
  return s;
}

bool constant(const std::vector<double>& v) {
  return std::all_of(v.begin(), v.end(), [&](double x) { return x == v.front(); });
}

constexpr const char* too_large_note = "the medians differ by more than a percentage can express";

// A significance decision still to be made after Holm's adjustment over all rows.
struct pending_test {
  std::size_t row = 0;
  double p = 1;
  bool improved = false;  // the direction if significant
};

// Fills everything but the significance-dependent verdicts; returns the p-value to adjust when the
// verdict depends on it.
std::optional<pending_test> judge(const compare_cell& base, const compare_cell& cand, bool base_has_workload,
                                  bool cand_has_workload, better direction, const std::string& metric,
                                  const noise_model& noise, bool same_session, const compare_options& opt,
                                  compare_change& ch) {
  if (!base.present && !cand.present) {
    ch.outcome = verdict::only_in_candidate;  // another candidate has it; counts() skips this one
    ch.note = "not in the baseline or this candidate";
    return std::nullopt;
  }
  if (base.present && !cand.present) {
    ch.outcome = verdict::only_in_baseline;
    ch.note = cand_has_workload ? fmt::format("candidate has no {}", metric) : "not in candidate";
    return std::nullopt;
  }
  if (!base.present) {
    ch.outcome = verdict::only_in_candidate;
    ch.note = base_has_workload ? fmt::format("baseline has no {}", metric) : "not in baseline";
    return std::nullopt;
  }
  if (base.state != status::ok || cand.state != status::ok) {
    ch.outcome = verdict::failed;
    if (base.state != status::ok) ch.note = side_failure("baseline", base);
    if (cand.state != status::ok) ch.note += (ch.note.empty() ? "" : "; ") + side_failure("candidate", cand);
    return std::nullopt;
  }
  ch.rounds_baseline = static_cast<int>(base.round_medians.size());
  ch.rounds_candidate = static_cast<int>(cand.round_medians.size());
  const double sign = direction == better::lower ? -1.0 : 1.0;  // + = better
  const bool deterministic = constant(base.samples) && constant(cand.samples);
  if (base.median == 0) {
    if (cand.median == 0) {
      ch.change_pct = 0.0;
      ch.outcome = verdict::unchanged;
      return std::nullopt;
    }
    ch.note = "baseline median is 0: no percentage change";
    const bool better_now = sign * cand.median > 0;
    if (deterministic) {
      ch.outcome = better_now ? verdict::improved : verdict::regressed;
      return std::nullopt;
    }
    ch.outcome = verdict::inconclusive;
    return std::nullopt;
  }
  if (deterministic) {
    const double change = sign * (cand.median - base.median) / std::abs(base.median) * 100.0 + 0.0;  // no -0
    if (!std::isfinite(change)) {  // medians 10^300 apart: a direction, but no printable percentage
      ch.note = too_large_note;
      ch.outcome = sign * (cand.median - base.median) > 0 ? verdict::improved : verdict::regressed;
      return std::nullopt;
    }
    ch.change_pct = change;
    ch.ci_low_pct = ch.ci_high_pct = change;
    ch.outcome = std::abs(change) < opt.threshold_pct ? verdict::unchanged
                 : change > 0                          ? verdict::improved
                                                       : verdict::regressed;
    return std::nullopt;
  }
  round_test_options to;
  to.round_sd = noise.round_sd;
  to.session_sd = same_session ? 0.0 : noise.session_sd;
  to.prior_df = opt.prior_df;
  to.alpha = opt.alpha;
  round_test_result t;
  try {
    t = between_round_test(base.round_medians, cand.round_medians, to);
  } catch (const std::invalid_argument&) {
    // Values spanning more than a double's range (a rate of 0 beside 1e-300 beside 1e29) leave
    // the test no finite statistic: no verdict beyond "too noisy to tell", and no number.
    ch.outcome = verdict::inconclusive;
    ch.note = "the values span too wide a range for the between-round test";
    return std::nullopt;
  }
  // Change and interval on the same scale as the test: geometric mean of the rounds' medians.
  auto pct = [&](double effect) { return sign * effect_to_pct(effect, t.log_scale) + 0.0; };
  const double change = pct(t.effect), lo = std::min(pct(t.ci_low), pct(t.ci_high)),
               hi = std::max(pct(t.ci_low), pct(t.ci_high));
  ch.p_value = t.p_value;
  // inf and nan are never shown as a change: the row keeps its direction and says why.
  if (std::isfinite(lo) && std::isfinite(hi)) {
    ch.ci_low_pct = lo;
    ch.ci_high_pct = hi;
  }
  if (!std::isfinite(change)) {
    ch.note = too_large_note;
    ch.outcome = verdict::inconclusive;
    return pending_test{0, t.p_value, sign * t.effect > 0};
  }
  ch.change_pct = change;
  if (std::abs(*ch.change_pct) < opt.threshold_pct - 1e-9) {  // inclusive, whatever the rounding of exp/log
    ch.outcome = verdict::unchanged;
    return pending_test{0, t.p_value, false};  // adjusted with the rest, but the verdict stands
  }
  ch.outcome = verdict::inconclusive;  // until the adjusted p says otherwise
  return pending_test{0, t.p_value, *ch.change_pct > 0};
}

// "SM clock 1665 -> 1425 MHz, power 700 -> 699 W", for rows whose verdict is a change.
std::string clock_context(const compare_cell& base, const compare_cell& cand) {
  std::string out;
  if (base.sm_mhz && cand.sm_mhz) out = fmt::format("SM clock {:.0f} -> {:.0f} MHz", *base.sm_mhz, *cand.sm_mhz);
  if (base.power_w && cand.power_w)
    out += fmt::format("{}power {:.0f} -> {:.0f} W", out.empty() ? "" : ", ", *base.power_w, *cand.power_w);
  return out;
}

// How much noisier than documented this comparison's rounds are: for every row with rounds on
// both sides, its pooled between-round variance of log medians over the kind's round_sd^2,
// divided by the median of chi^2_df / df (Wilson-Hilferty), so a row with exactly the documented
// noise scores 1 on average. The median over rows, not a pooled sum: one wild row (a host copy in
// a noisy session) must not inflate every other row's prior. Never below 1: the documented floors
// are a lower bound, the data may only raise them, so a noisy session cannot turn its extra noise
// into false alarms.
double session_noise_scale(const std::vector<compare_row>& rows, const std::vector<noise_model>& noise,
                           std::size_t candidate) {
  std::vector<double> ratios;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    const compare_cell& b = rows[r].cells[0];
    const compare_cell& c = rows[r].cells[candidate];
    if (!b.present || !c.present || b.state != status::ok || c.state != status::ok) continue;
    double ss = 0;
    int df = 0;
    bool usable = true;
    for (const compare_cell* cell : {&b, &c}) {
      const auto& m = cell->round_medians;
      if (!std::all_of(m.begin(), m.end(), [](double x) { return x > 0; })) usable = false;
      if (!usable || m.size() < 2) continue;
      double mean = 0;
      for (double x : m) mean += std::log(x);
      mean /= static_cast<double>(m.size());
      for (double x : m) ss += (std::log(x) - mean) * (std::log(x) - mean);
      df += static_cast<int>(m.size()) - 1;
    }
    if (!usable || df < 2) continue;
    const double chi2_median_over_df = std::pow(1.0 - 2.0 / (9.0 * df), 3);
    ratios.push_back(ss / df / (noise[r].round_sd * noise[r].round_sd) / chi2_median_over_df);
  }
  if (ratios.empty()) return 1.0;
  return std::max(1.0, std::sqrt(median(ratios)));
}

// " x1.4 (rounds noisier than documented)" when some candidate's scale is above 1.
std::string noise_note(const std::vector<double>& scales) {
  double worst = 1;
  for (double s : scales) worst = std::max(worst, s);
  return worst > 1.0 + 1e-9 ? fmt::format(" x{:.2f} (rounds noisier than documented)", worst) : "";
}

std::string session_of(const result_file& f) {
  const auto it = f.interleave.find("session");
  return it != f.interleave.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::optional<double> median_of(const std::vector<double>& v) {
  if (v.empty()) return std::nullopt;
  return median(v);
}

// Physically impossible samples (sample_rules.hpp) are bad input: a negative or zero time must
// not become "+173% improved".
void check_samples(const compare_cell& c, const std::string& source, const std::string& id, const std::string& metric,
                   const std::string& unit) {
  if (c.samples.empty())
    throw input_error(fmt::format("{}: workload {}: metric {} has no samples", source, id, metric));
  for (std::size_t i = 0; i < c.samples.size(); ++i)
    if (const auto why = impossible_sample(c.samples[i], unit))
      throw input_error(fmt::format("{}: workload {}: metric {}: sample {}: {}", source, id, metric, i, *why));
}

}  // namespace

comparison compare_results(const std::vector<result_file>& files, const std::vector<std::string>& sources,
                           const compare_options& opt) {
  if (files.size() < 2)
    throw input_error(fmt::format("compare needs at least two result files (got {})", files.size()));
  if (sources.size() != files.size()) throw std::invalid_argument("compare_results: one source name per file");
  const std::size_t nf = files.size();

  comparison out;
  out.sources = sources;
  out.alpha = opt.alpha;
  out.threshold_pct = opt.threshold_pct;
  if (!(opt.prior_df > 0)) throw std::invalid_argument("compare_results: prior_df must be positive");
  std::map<std::string, int> seen;
  for (const auto& f : files) {
    const std::string l = f.label();
    const int k = ++seen[l];
    out.labels.push_back(k == 1 ? l : fmt::format("{} ({})", l, k));
  }

  for (const char* field : {"device", "driver_version", "cuda_runtime", "cuda_toolkit", "cublas", "cudnn",
                            "cuda_architectures", "build_type"}) {
    env_difference d{field, {}};
    for (const auto& f : files) d.values.push_back(env_value(f, field));
    if (std::set<std::string>(d.values.begin(), d.values.end()).size() > 1) out.env_differences.push_back(d);
  }
  {
    std::set<std::string> gpus;
    std::string listed;
    for (std::size_t i = 0; i < nf; ++i) {
      const std::string g = env_value(files[i], "device");
      if (g == "-") continue;
      gpus.insert(g);
      listed += fmt::format("{}{} ({})", listed.empty() ? "" : ", ", g, out.labels[i]);
    }
    if (gpus.size() > 1)
      out.gpu_warning = fmt::format("the files ran on different GPU models: {}; the numbers compare hardware, "
                                    "not just the software stack",
                                    listed);
  }

  // One interleaved session (`cudabench ab`): the sides share machine, power state and drift, so
  // the between-session term cancels.
  const std::string base_session = session_of(files[0]);
  for (std::size_t i = 1; i < nf; ++i)
    out.same_session.push_back(!base_session.empty() && session_of(files[i]) == base_session);

  // Workload ids in order: the baseline's, then those only candidates have. One hash index per
  // file: a linear search per id made comparing two 10^5-workload files take minutes.
  // Views into `files`, which outlive this function's use of them.
  std::vector<std::string_view> ids;
  std::unordered_set<std::string_view> id_set;
  std::vector<std::unordered_map<std::string_view, const workload_result*>> index(nf);
  for (std::size_t i = 0; i < nf; ++i) {
    index[i].reserve(files[i].workloads.size());
    for (const auto& w : files[i].workloads) {
      index[i].emplace(w.id, &w);  // the first of a repeated id, as the linear search found
      if ((!opt.filter || opt.filter(w.id)) && id_set.insert(w.id).second) ids.push_back(w.id);
    }
  }
  auto find = [&index](std::size_t file, std::string_view id) -> const workload_result* {
    const auto it = index[file].find(id);
    return it == index[file].end() ? nullptr : it->second;
  };

  bool in_common = false;
  std::vector<std::vector<pending_test>> pending(nf - 1);
  std::vector<noise_model> noise_of_row;  // parallel to out.rows
  for (const std::string_view id_view : ids) {
    const std::string id(id_view);
    std::vector<const workload_result*> ws(nf);
    for (std::size_t i = 0; i < nf; ++i) ws[i] = find(i, id);
    for (std::size_t i = 1; i < nf; ++i) in_common = in_common || (ws[0] && ws[i]);

    const workload_result* first = nullptr;  // the first file that has this workload (kind, params)
    const workload_result* with_metrics = nullptr;
    for (auto* w : ws) {
      if (w && !first) first = w;
      if (w && !w->metrics.empty() && !with_metrics) with_metrics = w;
    }
    std::vector<std::string> metric_names;
    if (opt.metrics.empty()) {
      metric_names.push_back(with_metrics ? with_metrics->metrics.front().first : "");
    } else {
      for (const auto& m : opt.metrics)
        for (auto* w : ws)
          if (w && w->find_metric(m)) {
            metric_names.push_back(m);
            break;
          }
      bool any_failed = false;
      for (auto* w : ws) any_failed = any_failed || (w && w->state != status::ok);
      if (metric_names.empty() && any_failed && !with_metrics) metric_names.push_back("");
    }
    const workload_result* desc = with_metrics ? with_metrics : first;
    std::vector<std::string> units;
    for (const auto& [n, m] : desc->metrics) units.push_back(m.unit);

    for (const auto& mname : metric_names) {
      compare_row row;
      row.id = id;
      row.kind = desc->kind;
      row.metric = mname;
      if (const metric* m = mname.empty() ? nullptr : desc->find_metric(mname)) {
        row.unit = m->unit;
        row.direction = m->direction;
      } else {
        for (auto* w : ws)
          if (const metric* m2 = (w && !mname.empty()) ? w->find_metric(mname) : nullptr) {
            row.unit = m2->unit;
            row.direction = m2->direction;
            break;
          }
      }
      row.name = readable_name(id, row.kind, desc->params, mname, row.unit, units);
      row.base_has_workload = ws[0] != nullptr;
      for (std::size_t i = 1; i < nf; ++i) row.cand_has_workload.push_back(ws[i] != nullptr);
      for (std::size_t i = 0; i < nf; ++i) {
        compare_cell c;
        const workload_result* w = ws[i];
        if (w) {
          c.state = w->state;
          c.message = w->message;
          c.throttled = w->clocks.throttled || !w->clocks.throttle_reasons.empty();
          c.sm_mhz = median_of(w->clocks.sm_mhz);
          c.power_w = median_of(w->clocks.power_w);
          c.tuning = w->tuning;
          if (w->state != status::ok) {
            c.present = true;
          } else if (const metric* m = w->find_metric(mname)) {
            c.present = true;
            c.samples = m->samples;
            check_samples(c, sources[i], id, mname, m->unit);
            if (!m->rounds.empty() && m->rounds.size() != m->samples.size())
              throw input_error(fmt::format("{}: workload {}: metric {} has {} round indices for {} samples", sources[i],
                                            id, mname, m->rounds.size(), m->samples.size()));
            c.sample_rounds = m->rounds;
            c.median = median(c.samples);  // from the samples, not the stored summary
            c.round_medians = round_medians(c.samples, c.sample_rounds);
          }
        }
        row.cells.push_back(std::move(c));
      }
      noise_of_row.push_back(noise_floor(row.kind, mname, desc->params));
      out.rows.push_back(std::move(row));
    }
  }
  // Second pass, once every row is known: the session's noise scale per candidate, then verdicts.
  for (std::size_t i = 1; i < nf; ++i) {
    const double scale = session_noise_scale(out.rows, noise_of_row, i);
    out.noise_scale.push_back(scale);
    for (std::size_t r = 0; r < out.rows.size(); ++r) {
      compare_row& row = out.rows[r];
      noise_model noise = noise_of_row[r];
      noise.round_sd *= scale;
      compare_change ch;
      auto t = judge(row.cells[0], row.cells[i], row.base_has_workload, row.cand_has_workload[i - 1], row.direction, row.metric, noise,
                     out.same_session[i - 1], opt, ch);
      if (t) {
        t->row = r;
        pending[i - 1].push_back(*t);
      }
      const auto& b = row.cells[0];
      const auto& cnd = row.cells[i];
      ch.tuning_differs = b.present && cnd.present && !b.tuning.empty() && !cnd.tuning.empty() && b.tuning != cnd.tuning;
      row.changes.push_back(std::move(ch));
    }
  }
  if (!in_common)
    throw input_error(fmt::format("no workload in common between the baseline {} and {}{}", sources[0],
                                  nf == 2 ? sources[1] : "any candidate",
                                  opt.filter ? " (after --filter)" : ""));
  if (out.rows.empty()) throw input_error("no workload has the requested metric(s)");

  // Family-wise error control: Holm over every tested row of each candidate.
  std::size_t tested = 0;
  for (std::size_t k = 0; k + 1 < nf; ++k) {
    std::vector<double> ps;
    for (const auto& t : pending[k]) ps.push_back(t.p);
    const std::vector<double> adj = holm_adjust(ps);
    tested = std::max(tested, ps.size());
    for (std::size_t j = 0; j < adj.size(); ++j) {
      compare_change& ch = out.rows[pending[k][j].row].changes[k];
      ch.p_adjusted = adj[j];
      if (ch.outcome != verdict::inconclusive) continue;  // unchanged: under the threshold
      if (adj[j] < opt.alpha)
        ch.outcome = pending[k][j].improved ? verdict::improved : verdict::regressed;
      else
        ch.note += (ch.note.empty() ? "" : "; ") + fmt::format("adjusted p = {:.3g} is not below alpha {:g}", adj[j], opt.alpha);
    }
  }
  for (auto& r : out.rows)
    for (std::size_t k = 0; k < r.changes.size(); ++k) {
      auto& ch = r.changes[k];
      if (ch.outcome == verdict::improved || ch.outcome == verdict::regressed)
        ch.context = clock_context(r.cells[0], r.cells[k + 1]);
    }

  for (const auto& f : files) out.rounds.push_back(std::max(1, f.rounds));
  const bool all_same = std::all_of(out.same_session.begin(), out.same_session.end(), [](bool b) { return b; });
  const bool none_same = std::none_of(out.same_session.begin(), out.same_session.end(), [](bool b) { return b; });
  out.method = fmt::format(
      "between-round moderated t test on per-round medians (prior: each kind's round noise{}, {:g} df; {}), "
      "Holm-corrected over {} tested row{} per candidate, alpha {:g}, threshold {:g}%",
      noise_note(out.noise_scale), opt.prior_df,
      all_same    ? "one interleaved session"
      : none_same ? "separate sessions: each kind's session noise added"
                  : "session noise added where not interleaved with the baseline",
      tested, tested == 1 ? "" : "s", opt.alpha, opt.threshold_pct);
  std::string single;
  for (std::size_t i = 0; i < nf; ++i)
    if (out.rounds[i] < 2) single += fmt::format("{}{}", single.empty() ? "" : ", ", sources[i]);
  if (!single.empty())
    out.single_round_warning = fmt::format(
        "single-round file(s): {}: between-run noise was not measured, so rows are judged against each kind's "
        "documented noise floor alone (conservative); record several rounds (run --rounds 5) for a trustworthy verdict",
        single);

  // Two different workloads must never share a readable name: fall back to the id for those.
  // (Views into out.rows, which no longer changes size; a hash map, for 10^6 rows.)
  struct name_use {
    std::string_view first_id;
    bool shared = false;
  };
  std::unordered_map<std::string_view, name_use> ids_by_name;
  ids_by_name.reserve(out.rows.size());
  for (const auto& r : out.rows) {
    const auto [it, fresh] = ids_by_name.try_emplace(r.name, name_use{r.id});
    if (!fresh && it->second.first_id != r.id) it->second.shared = true;
  }
  std::vector<bool> rename(out.rows.size());
  for (std::size_t i = 0; i < out.rows.size(); ++i) rename[i] = ids_by_name.at(out.rows[i].name).shared;
  for (std::size_t i = 0; i < out.rows.size(); ++i) {
    auto& r = out.rows[i];
    if (rename[i]) r.name = r.metric.empty() ? r.id : fmt::format("{} · {} ({})", r.id, r.metric, r.unit);
  }
  return out;
}

}  // namespace cudabench
