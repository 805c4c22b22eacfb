// See compare.hpp. Verdict rules (DESIGN.md "Compare"):
//   either side not ok                   -> failed (the note says which side and why)
//   |change| <  threshold                -> unchanged
//   |change| >= threshold, p <  alpha    -> improved / regressed (by the sign of the change)
//   |change| >= threshold, p >= alpha    -> inconclusive (too noisy to tell)
// A zero baseline median has no percentage change: equal medians are unchanged, otherwise the
// direction of the difference decides when significant and it is inconclusive when not.
#include "cudabench/compare.hpp"

#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "cudabench/errors.hpp"
#include "cudabench/mann_whitney.hpp"
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

compare_change judge(const compare_cell& base, const compare_cell& cand, bool base_has_workload, bool cand_has_workload,
                     better direction, const std::string& metric, const compare_options& opt) {
  compare_change ch;
  if (!base.present && !cand.present) {
    ch.outcome = verdict::only_in_candidate;  // another candidate has it; counts() skips this one
    ch.note = "not in the baseline or this candidate";
    return ch;
  }
  if (base.present && !cand.present) {
    ch.outcome = verdict::only_in_baseline;
    ch.note = cand_has_workload ? fmt::format("candidate has no {}", metric) : "not in candidate";
    return ch;
  }
  if (!base.present) {
    ch.outcome = verdict::only_in_candidate;
    ch.note = base_has_workload ? fmt::format("baseline has no {}", metric) : "not in baseline";
    return ch;
  }
  if (base.state != status::ok || cand.state != status::ok) {
    ch.outcome = verdict::failed;
    if (base.state != status::ok) ch.note = side_failure("baseline", base);
    if (cand.state != status::ok) ch.note += (ch.note.empty() ? "" : "; ") + side_failure("candidate", cand);
    return ch;
  }
  const double p = mann_whitney_u(base.samples, cand.samples).p_value;
  ch.p_value = p;
  const bool significant = p < opt.alpha;
  const double sign = direction == better::lower ? -1.0 : 1.0;  // + = better
  if (base.median == 0) {
    if (cand.median == 0) {
      ch.change_pct = 0.0;
      ch.outcome = verdict::unchanged;
      return ch;
    }
    ch.note = "baseline median is 0: no percentage change";
    const bool better_now = sign * cand.median > 0;
    ch.outcome = significant ? (better_now ? verdict::improved : verdict::regressed) : verdict::inconclusive;
    return ch;
  }
  const double change = sign * (cand.median - base.median) / std::abs(base.median) * 100.0 + 0.0;  // no -0
  ch.change_pct = change;
  if (std::abs(change) < opt.threshold_pct)
    ch.outcome = verdict::unchanged;
  else if (significant)
    ch.outcome = change > 0 ? verdict::improved : verdict::regressed;
  else {
    ch.outcome = verdict::inconclusive;
    ch.note = fmt::format("p = {:.3g} is not below alpha {:g}", p, opt.alpha);
  }
  return ch;
}

void check_samples(const compare_cell& c, const std::string& source, const std::string& id, const std::string& metric) {
  if (c.samples.empty())
    throw input_error(fmt::format("{}: workload {}: metric {} has no samples", source, id, metric));
  for (double v : c.samples)
    if (!std::isfinite(v))
      throw input_error(fmt::format("{}: workload {}: metric {} has a NaN or infinite sample", source, id, metric));
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

  // Workload ids in order: the baseline's, then those only candidates have.
  std::vector<std::string> ids;
  std::set<std::string> id_set;
  for (const auto& f : files)
    for (const auto& w : f.workloads)
      if ((!opt.filter || opt.filter(w.id)) && id_set.insert(w.id).second) ids.push_back(w.id);

  auto find = [](const result_file& f, const std::string& id) -> const workload_result* {
    for (const auto& w : f.workloads)
      if (w.id == id) return &w;
    return nullptr;
  };

  bool in_common = false;
  for (const auto& id : ids) {
    std::vector<const workload_result*> ws(nf);
    for (std::size_t i = 0; i < nf; ++i) ws[i] = find(files[i], id);
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
      for (std::size_t i = 0; i < nf; ++i) {
        compare_cell c;
        const workload_result* w = ws[i];
        if (w) {
          c.state = w->state;
          c.message = w->message;
          c.throttled = w->clocks.throttled || !w->clocks.throttle_reasons.empty();
          if (w->state != status::ok) {
            c.present = true;
          } else if (const metric* m = w->find_metric(mname)) {
            c.present = true;
            c.samples = m->samples;
            check_samples(c, sources[i], id, mname);
            c.median = median(c.samples);  // from the samples the U test sees, not the stored summary
          }
        }
        row.cells.push_back(std::move(c));
      }
      for (std::size_t i = 1; i < nf; ++i)
        row.changes.push_back(
            judge(row.cells[0], row.cells[i], ws[0] != nullptr, ws[i] != nullptr, row.direction, mname, opt));
      out.rows.push_back(std::move(row));
    }
  }
  if (!in_common)
    throw input_error(fmt::format("no workload in common between the baseline {} and {}{}", sources[0],
                                  nf == 2 ? sources[1] : "any candidate",
                                  opt.filter ? " (after --filter)" : ""));
  if (out.rows.empty()) throw input_error("no workload has the requested metric(s)");

  // Two different workloads must never share a readable name: fall back to the id for those.
  std::map<std::string, std::set<std::string>> ids_by_name;
  for (const auto& r : out.rows) ids_by_name[r.name].insert(r.id);
  for (auto& r : out.rows)
    if (ids_by_name[r.name].size() > 1)
      r.name = r.metric.empty() ? r.id : fmt::format("{} · {} ({})", r.id, r.metric, r.unit);
  return out;
}

}  // namespace cudabench
