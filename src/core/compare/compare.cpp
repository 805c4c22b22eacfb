// See compare.hpp and docs/statistics.md. Verdict rules:
//   both sides out of memory                            -> unchanged (the row's outcome, e.g. a mem_limit row)
//   either side not ok otherwise                        -> failed (the note says which side and why)
//   |change| <  threshold                               -> unchanged
//   |change| >= threshold, Holm-adjusted p <  alpha     -> improved / regressed (by the sign of the change)
//   |change| >= threshold, Holm-adjusted p >= alpha     -> inconclusive (too noisy to tell)
// p comes from the between-round test on per-round medians (round_test.hpp), with the row's
// measured between-round noise as prior (row_noise.hpp: committed prior, history; else the prior
// learned from this comparison's rows of its kind, compare_pooled_noise.cpp; else the kind's table) and, unless
// both files come from one interleaved `cudabench ab` session, its between-session noise as extra variance with its df;
// Holm's adjustment runs over every tested row of one candidate, so an A/A comparison of many rows
// raises a false alarm with probability at most alpha. A metric with no spread on either side (peak memory, weight
// bytes: deterministic, often a single sample) has no sampling noise, so its change is judged by the threshold alone.
// A zero baseline median has no percentage change: equal medians are unchanged, otherwise the
// direction of the difference decides when significant and it is inconclusive when not.
// This file judges the rows; the environment diff and the row matching are compare_env.cpp and
// compare_match.cpp (compare_parts.hpp).
#include "cudabench/compare.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

#include "compare_parts.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/multiple_testing.hpp"
#include "cudabench/noise_floor.hpp"
#include "cudabench/pooled_noise.hpp"
#include "cudabench/round_test.hpp"
#include "cudabench/sample_rules.hpp"
#include "cudabench/stats.hpp"
#include "cudabench/variance_prior.hpp"

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

bool comparison::has_cycles_or_energy() const {
  for (const auto& r : rows)
    for (const auto& ch : r.changes)
      if (ch.cycles_change_pct || ch.energy_change_pct) return true;
  return false;
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
  double se = 0, df = 1;  // of the test, for the row's minimum detectable change
  bool log_scale = true;
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
  if (base.state == status::oom && cand.state == status::oom) {
    // Out of memory is the row's outcome, not a breakage: the seed's memory table records "OOM" as
    // a cell, and a row capped by mem_limit is meant to hit it. Both sides hitting it is no change.
    ch.outcome = verdict::unchanged;
    ch.note = "out of memory in both";
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
                 : change > 0                         ? verdict::improved
                                                      : verdict::regressed;
    return std::nullopt;
  }
  round_test_options to;
  to.round_sd = noise.round_sd;
  to.session_sd = same_session ? 0.0 : noise.session_sd;
  to.session_df = same_session ? 0.0 : noise.session_df;
  // A measured round prior weighs what it was measured with, never more than prior_df: rounds of
  // other sessions say less about this session's rounds than about the row in general.
  to.prior_df = noise.round_df > 0 ? std::min(noise.round_df, opt.prior_df) : opt.prior_df;
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
  if (t.prior_set_aside) ch.note = "rounds far noisier than this row's measured prior: judged on its own rounds";
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
    return pending_test{0, t.p_value, sign * t.effect > 0, t.se, t.df, t.log_scale};
  }
  ch.change_pct = change;
  if (std::abs(*ch.change_pct) < opt.threshold_pct - 1e-9) {  // inclusive, whatever the rounding of exp/log
    ch.outcome = verdict::unchanged;
    return pending_test{0, t.p_value, false, t.se, t.df, t.log_scale};  // adjusted with the rest; the verdict stands
  }
  ch.outcome = verdict::inconclusive;  // until the adjusted p says otherwise
  return pending_test{0, t.p_value, *ch.change_pct > 0, t.se, t.df, t.log_scale};
}

// "SM clock 1665 -> 1425 MHz, power 700 -> 699 W", for rows whose verdict is a change.
std::string clock_context(const compare_cell& base, const compare_cell& cand) {
  std::string out;
  if (base.sm_mhz && cand.sm_mhz) out = fmt::format("SM clock {:.0f} -> {:.0f} MHz", *base.sm_mhz, *cand.sm_mhz);
  if (base.power_w && cand.power_w)
    out += fmt::format("{}power {:.0f} -> {:.0f} W", out.empty() ? "" : ", ", *base.power_w, *cand.power_w);
  return out;
}

constexpr const char* clock_not_code_note = "clock: cycles unchanged";

// Change per run in %, positive = fewer (the baseline's median over the candidate's, as change_pct
// reads for a lower-is-better metric); none unless both sides measured it and the baseline is not 0.
std::optional<double> fewer_pct(std::optional<double> base, std::optional<double> cand) {
  if (!base || !cand || !(*base > 0)) return std::nullopt;
  const double pct = (*base - *cand) / *base * 100.0 + 0.0;  // no -0
  return std::isfinite(pct) ? std::optional<double>(pct) : std::nullopt;
}

// "cycles 1.4% fewer" / "energy 3.0% more", for the context of a changed row.
std::string fewer_text(const char* what, double pct) {
  return fmt::format("{} {:.1f}% {}", what, std::abs(pct), pct >= 0 ? "fewer" : "more");
}

// The reading aids beside a row whose both sides ran: cycles and energy per run, and for a changed
// time or rate whose cycles stayed within the threshold, the note that the clock moved, not the
// code. Cycles are time x clock: when the clock explains the change, they stay put; the threshold is
// the one that calls a change of the headline "unchanged". A reading aid, not a verdict. The SMs'
// counted cycles (`sm_cycles`) are used where both sides have them: NVML's clock is a point sample
// after each repetition, and at the power cap it misses the clock the repetition ran at (an H100
// matmul A/A: round medians 3-8% apart in NVML cycles, 0.2-2% in sm_cycles; docs/statistics.md
// "Cycles and energy").
void add_cycles_and_energy(const compare_row& row, const compare_cell& base, const compare_cell& cand,
                           double threshold_pct, compare_change& ch) {
  if (!base.present || !cand.present || base.state != status::ok || cand.state != status::ok) return;
  const bool counted = base.sm_cycles && cand.sm_cycles;
  ch.cycles_change_pct = counted ? fewer_pct(base.sm_cycles, cand.sm_cycles) : fewer_pct(base.cycles, cand.cycles);
  ch.energy_change_pct = fewer_pct(base.energy_j, cand.energy_j);
  if (ch.outcome != verdict::improved && ch.outcome != verdict::regressed) return;
  if (ch.cycles_change_pct)
    ch.context += (ch.context.empty() ? "" : ", ") + fewer_text("cycles", *ch.cycles_change_pct);
  if (ch.energy_change_pct)
    ch.context += (ch.context.empty() ? "" : ", ") + fewer_text("energy", *ch.energy_change_pct);
  const unit_class u = classify_unit(row.unit);
  // Only a time or a rate gets the note: a row of cycles themselves (Mcycles, an energy-class unit)
  // never speaks about its own clock.
  const bool timed = u == unit_class::time || u == unit_class::rate;
  if (timed && ch.cycles_change_pct && std::abs(*ch.cycles_change_pct) < threshold_pct) {
    // In the note (JSON, CSV, HTML) and the context line the text reports print for changed rows.
    ch.note += (ch.note.empty() ? "" : "; ") + std::string(clock_not_code_note);
    ch.context += (ch.context.empty() ? "" : "; ") + std::string(clock_not_code_note);
  }
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
    if (noise[r].round_source == pooled_round_source) continue;  // fitted to these rounds
    const auto positive = [](const compare_cell& cell) {
      return std::all_of(cell.round_medians.begin(), cell.round_medians.end(), [](double x) { return x > 0; });
    };
    if (!positive(b) || !positive(c)) continue;
    round_evidence e;
    add_round_evidence(e, b.round_medians);
    add_round_evidence(e, c.round_medians);
    if (e.df < 2) continue;
    const double chi2_median_over_df = std::pow(1.0 - 2.0 / (9.0 * e.df), 3);
    ratios.push_back(e.ss / e.df / (noise[r].round_sd * noise[r].round_sd) / chi2_median_over_df);
  }
  if (ratios.empty()) return 1.0;
  return std::max(1.0, std::sqrt(median(ratios)));
}

// " x1.4 (rounds noisier than documented)" when some candidate's scale is above 1.
std::string noise_note(const std::vector<double>& scales) {
  double worst = 1;
  for (double s : scales) worst = std::max(worst, s);
  return worst > 1.0 + 1e-9 ? fmt::format(" x{:.2f} (rounds noisier than measured)", worst) : "";
}

// Where the rows' session noise came from, so a fallback is said out loud.
std::string noise_summary(const std::vector<compare_row>& rows, int pooled) {
  std::map<std::string, int> by_source;
  for (const auto& r : rows) ++by_source[r.noise.session_source];
  std::string out = "session noise per row from: ";
  bool first = true;
  for (const auto& [source, n] : by_source) {
    out += fmt::format("{}{} {}", first ? "" : ", ", source, n);
    first = false;
  }
  if (by_source.count("fallback"))
    out += " (fallback: no measured sessions of that row on this GPU model; the kind's documented table is used)";
  if (pooled)
    out += fmt::format(
        "; round noise of {} row{} that no committed measurement knows learned from the "
        "rows of this comparison (empirical Bayes, per kind where it has {}+ rows)",
        pooled, pooled == 1 ? "" : "s", variance_prior_min_rows);
  return out;
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
  out.power = opt.power;
  if (!(opt.prior_df > 0)) throw std::invalid_argument("compare_results: prior_df must be positive");
  if (!(opt.power > 0 && opt.power < 1)) throw std::invalid_argument("compare_results: power must be in (0, 1)");
  compare_detail::describe_files(files, out);

  compare_detail::matched_rows matched = compare_detail::match_rows(files, sources, opt);
  out.rows = std::move(matched.rows);
  std::vector<noise_model>& noise_of_row = matched.noise;
  out.pooled_rows = compare_detail::pool_round_noise(out.rows, noise_of_row);
  const bool in_common = matched.in_common;
  std::vector<std::vector<pending_test>> pending(nf - 1);
  // Second pass, once every row is known: the session's noise scale per candidate, then verdicts.
  for (std::size_t i = 1; i < nf; ++i) {
    const double scale = session_noise_scale(out.rows, noise_of_row, i);
    out.noise_scale.push_back(scale);
    for (std::size_t r = 0; r < out.rows.size(); ++r) {
      compare_row& row = out.rows[r];
      noise_model noise = noise_of_row[r];
      // A pooled prior is these very rounds' level: scaling it by their excess would count it twice.
      if (noise.round_source != pooled_round_source) noise.round_sd *= scale;
      compare_change ch;
      auto t = judge(row.cells[0], row.cells[i], row.base_has_workload, row.cand_has_workload[i - 1], row.direction,
                     row.metric, noise, out.same_session[i - 1], opt, ch);
      if (t) {
        t->row = r;
        pending[i - 1].push_back(*t);
      }
      const auto& b = row.cells[0];
      const auto& cnd = row.cells[i];
      ch.tuning_differs =
          b.present && cnd.present && !b.tuning.empty() && !cnd.tuning.empty() && b.tuning != cnd.tuning;
      row.changes.push_back(std::move(ch));
    }
  }
  if (!in_common)
    throw input_error(fmt::format("no workload in common between the baseline {} and {}{}", sources[0],
                                  nf == 2 ? sources[1] : "any candidate", opt.filter ? " (after --filter)" : ""));
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
      const pending_test& pt = pending[k][j];
      const double mde = detectable_pct(pt.se, pt.df, opt.alpha, static_cast<int>(ps.size()), opt.power, pt.log_scale);
      if (std::isfinite(mde)) ch.mde_pct = mde;
      if (ch.outcome != verdict::inconclusive) continue;  // unchanged: under the threshold
      if (adj[j] < opt.alpha) ch.outcome = pending[k][j].improved ? verdict::improved : verdict::regressed;
      else
        ch.note += (ch.note.empty() ? "" : "; ") +
                   fmt::format("adjusted p = {:.3g} is not below alpha {:g}", adj[j], opt.alpha);
    }
  }
  for (auto& r : out.rows)
    for (std::size_t k = 0; k < r.changes.size(); ++k) {
      auto& ch = r.changes[k];
      if (ch.outcome == verdict::improved || ch.outcome == verdict::regressed)
        ch.context = clock_context(r.cells[0], r.cells[k + 1]);
      add_cycles_and_energy(r, r.cells[0], r.cells[k + 1], opt.threshold_pct, ch);
    }

  for (const auto& f : files) out.rounds.push_back(std::max(1, f.rounds));
  const bool all_same = std::all_of(out.same_session.begin(), out.same_session.end(), [](bool b) { return b; });
  const bool none_same = std::none_of(out.same_session.begin(), out.same_session.end(), [](bool b) { return b; });
  out.method = fmt::format(
      "between-round moderated t test on per-round medians (prior: each row's measured round noise{}, at most "
      "{:g} df; {}), Holm-corrected over {} tested row{} per candidate, alpha {:g}, threshold {:g}%; "
      "mde = minimum detectable change at {:g}% power",
      noise_note(out.noise_scale), opt.prior_df,
      all_same    ? "one interleaved session"
      : none_same ? "separate sessions: each row's session noise added, with its df"
                  : "session noise added where not interleaved with the baseline",
      tested, tested == 1 ? "" : "s", opt.alpha, opt.threshold_pct, opt.power * 100);
  out.noise_summary = noise_summary(out.rows, out.pooled_rows);
  std::string single;
  for (std::size_t i = 0; i < nf; ++i)
    if (out.rounds[i] < 2) single += fmt::format("{}{}", single.empty() ? "" : ", ", sources[i]);
  if (!single.empty())
    out.single_round_warning = fmt::format(
        "single-round file(s): {}: between-run noise was not measured in them, so rows are judged against each "
        "row's prior noise alone (measured, or the kind's table); record several rounds (run --rounds 5) for a "
        "trustworthy verdict",
        single);

  compare_detail::make_names_unique(out.rows);
  return out;
}

}  // namespace cudabench
