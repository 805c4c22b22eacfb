// compare_results, part two: the rows, and what each file holds for them. See compare_parts.hpp.
#include <algorithm>
#include <optional>
#include <set>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "compare_parts.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/round_test.hpp"
#include "cudabench/row_noise.hpp"
#include "cudabench/sample_rules.hpp"
#include "cudabench/stats.hpp"

namespace cudabench::compare_detail {
namespace {

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

// The metric names the (filtered) workloads of `files` carry, for the message of a --metric that
// matches none: a few, sorted, "..." when there are more.
std::vector<std::string> metrics_in(const std::vector<result_file>& files, const compare_options& opt) {
  std::set<std::string> names;
  for (const auto& f : files)
    for (const auto& w : f.workloads)
      if (!opt.filter || opt.filter(w.id))
        for (const auto& m : w.metrics) names.insert(m.first);
  std::vector<std::string> out;
  for (const auto& n : names) {
    if (out.size() == 8) {
      out.push_back("...");
      break;
    }
    out.push_back(n);
  }
  if (out.empty()) out.push_back("none");
  return out;
}

// The GPU model whose noise applies: the baseline's (environment.device.name).
std::string gpu_model(const result_file& f) {
  const auto d = f.environment.find("device");
  if (d == f.environment.end() || !d->is_object()) return "";
  const auto n = d->find("name");
  return n != d->end() && n->is_string() ? n->get<std::string>() : "";
}

}  // namespace

matched_rows match_rows(const std::vector<result_file>& files, const std::vector<std::string>& sources,
                        const compare_options& opt) {
  const std::size_t nf = files.size();
  const std::string gpu = gpu_model(files[0]);
  matched_rows out;
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

  for (const std::string_view id_view : ids) {
    const std::string id(id_view);
    std::vector<const workload_result*> ws(nf);
    for (std::size_t i = 0; i < nf; ++i) ws[i] = find(i, id);
    for (std::size_t i = 1; i < nf; ++i) out.in_common = out.in_common || (ws[0] && ws[i]);

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
      const metric* unit_of = nullptr;  // the first file's metric: the unit the others must share
      std::size_t unit_file = 0;
      for (std::size_t i = 0; i < nf; ++i) {
        compare_cell c;
        const workload_result* w = ws[i];
        if (w) {
          c.state = w->state;
          c.message = w->message;
          c.throttled = w->clocks.throttled || !w->clocks.throttle_reasons.empty();
          c.sm_mhz = median_of(w->clocks.sm_mhz);
          c.power_w = median_of(w->clocks.power_w);
          if (const metric* cy = w->find_metric("cycles")) c.cycles = median_of(cy->samples);
          if (const metric* sc = w->find_metric("sm_cycles")) c.sm_cycles = median_of(sc->samples);
          if (const metric* e = w->find_metric("energy_j")) c.energy_j = median_of(e->samples);
          c.tuning = w->tuning;
          if (w->state != status::ok) {
            c.present = true;
          } else if (const metric* m = w->find_metric(mname)) {
            // A ratio of medians in different units is no change at all (ms against s reads as
            // +99.9% improved): refused, naming both files and units.
            if (!unit_of) {
              unit_of = m;
              unit_file = i;
            } else if (m->unit != unit_of->unit) {
              throw input_error(
                  fmt::format("workload {}: metric {} is in \"{}\" in {} but in \"{}\" in {}: "
                              "files measured in different units cannot be compared",
                              id, mname, unit_of->unit, sources[unit_file], m->unit, sources[i]));
            }
            c.present = true;
            c.samples = m->samples;
            check_samples(c, sources[i], id, mname, m->unit);
            if (!m->rounds.empty() && m->rounds.size() != m->samples.size())
              throw input_error(fmt::format("{}: workload {}: metric {} has {} round indices for {} samples",
                                            sources[i], id, mname, m->rounds.size(), m->samples.size()));
            c.sample_rounds = m->rounds;
            c.median = median(c.samples);  // from the samples, not the stored summary
            c.round_medians = round_medians(c.samples, c.sample_rounds);
          }
        }
        row.cells.push_back(std::move(c));
      }
      row.noise = row_noise(opt.noise, gpu, id, row.kind, mname, desc->params);
      out.noise.push_back(row.noise);
      out.rows.push_back(std::move(row));
    }
  }
  // --metric that no workload has: said even when failed workloads (which carry no metrics) would
  // otherwise fill the table with rows and hide the typo.
  if (!opt.metrics.empty() &&
      std::none_of(out.rows.begin(), out.rows.end(), [](const compare_row& r) { return !r.metric.empty(); }))
    throw input_error(fmt::format("no workload has the requested metric(s) {} (these files have: {})",
                                  fmt::join(opt.metrics, ", "), fmt::join(metrics_in(files, opt), ", ")));
  return out;
}

void make_names_unique(std::vector<compare_row>& rows) {
  // Views into `rows`, which does not change size here; a hash map, for 10^6 rows.
  struct name_use {
    std::string_view first_id;
    bool shared = false;
  };
  std::unordered_map<std::string_view, name_use> ids_by_name;
  ids_by_name.reserve(rows.size());
  for (const auto& r : rows) {
    const auto [it, fresh] = ids_by_name.try_emplace(r.name, name_use{r.id});
    if (!fresh && it->second.first_id != r.id) it->second.shared = true;
  }
  std::vector<bool> rename(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) rename[i] = ids_by_name.at(rows[i].name).shared;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    auto& r = rows[i];
    if (rename[i]) r.name = r.metric.empty() ? r.id : fmt::format("{} · {} ({})", r.id, r.metric, r.unit);
  }
}

}  // namespace cudabench::compare_detail
