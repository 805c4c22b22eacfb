// See history.hpp. Series are built from the stored points; a run without an ok value for a series
// (absent, failed) is skipped by the change-point search, so a failed night neither creates nor
// hides a step, and is still shown with its status.
#include "cudabench/history.hpp"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "cudabench/errors.hpp"

namespace cudabench {

namespace {

// The valued entries of a series: their run indices and values.
void valued(const history_series& s, std::size_t upto, std::vector<std::size_t>& runs, std::vector<double>& values) {
  runs.clear();
  values.clear();
  for (std::size_t i = 0; i < upto; ++i)
    if (s.values[i]) {
      runs.push_back(i);
      values.push_back(*s.values[i]);
    }
}

std::vector<history_series::step> find_steps(const history_series& s, std::size_t upto,
                                             const change_point_options& opt) {
  std::vector<std::size_t> runs;
  std::vector<double> values;
  valued(s, upto, runs, values);
  std::vector<history_series::step> out;
  for (const auto& cp : detect_change_points(values, opt)) {
    history_series::step st;
    st.run = runs[cp.index];
    st.previous = runs[cp.index - 1];
    st.where = cp;
    st.worse = s.direction == better::lower ? cp.change_pct > 0 : cp.change_pct < 0;
    out.push_back(st);
  }
  return out;
}

}  // namespace

history_view build_history(const history_store& store, const history_options& options) {
  history_view h;
  h.options = options;
  h.runs = store.runs();
  std::map<std::int64_t, std::size_t> pos;
  for (std::size_t i = 0; i < h.runs.size(); ++i) pos[h.runs[i].id] = i;
  const auto points = store.points(options.filter);
  if (points.empty()) {
    if (h.runs.empty()) return h;
    throw input_error("no stored workload matches the filter");
  }

  // Which series: per workload, the --metric names it has, else its headline metric in the newest
  // run that has one (a suite that changed its headline follows the newest choice).
  std::vector<std::string> order;
  std::map<std::string, std::string> headline;
  std::map<std::string, std::set<std::string>> metrics_of;
  for (const auto& p : points) {
    if (!metrics_of.count(p.workload_id)) order.push_back(p.workload_id);
    metrics_of[p.workload_id];
    if (p.metric.empty()) continue;
    metrics_of[p.workload_id].insert(p.metric);
    if (p.headline) headline[p.workload_id] = p.metric;
  }
  std::map<std::string, std::vector<std::size_t>> series_of;  // workload id -> its series
  std::set<std::string> used_metrics;
  for (const auto& id : order) {
    std::vector<std::string> names;
    if (options.metrics.empty()) {
      if (headline.count(id)) names.push_back(headline[id]);
    } else {
      for (const auto& m : options.metrics)
        if (metrics_of[id].count(m)) names.push_back(m);
    }
    for (const auto& m : names) {
      used_metrics.insert(m);
      history_series s;
      s.workload_id = id;
      s.metric = m;
      s.values.assign(h.runs.size(), std::nullopt);
      s.states.assign(h.runs.size(), std::nullopt);
      s.throttled.assign(h.runs.size(), false);
      series_of[id].push_back(h.series.size());
      h.series.push_back(std::move(s));
    }
  }
  for (const auto& m : options.metrics)
    if (!used_metrics.count(m)) throw input_error(fmt::format("no stored workload has a metric named \"{}\"", m));

  for (const auto& p : points) {
    const std::size_t run = pos.at(p.run_id);
    const auto it = series_of.find(p.workload_id);
    if (it == series_of.end()) continue;
    for (std::size_t si : it->second) {
      history_series& s = h.series[si];
      if (!p.metric.empty() && s.metric != p.metric) continue;
      s.states[run] = p.state;
      s.throttled[run] = p.throttled;
      if (p.metric.empty()) continue;
      s.values[run] = p.value;
      s.kind = p.kind;
      s.name = p.name;
      s.unit = p.unit;
      s.direction = p.direction;
    }
  }
  // Two series with one readable name (a kind without a description, equal parameters) would make
  // a step line ambiguous: those are named by id instead.
  std::map<std::string, int> uses;
  for (const auto& s : h.series) ++uses[s.name];
  for (auto& s : h.series)
    if (uses[s.name] > 1) s.name = fmt::format("{} \u00b7 {} ({})", s.workload_id, s.metric, s.unit);
  for (auto& s : h.series) s.steps = find_steps(s, h.runs.size(), options.detection);
  return h;
}

std::string run_differences(const history_run& a, const history_run& b) {
  std::string out;
  auto diff = [&](const char* what, const std::string& x, const std::string& y) {
    if (x == y) return;
    out += fmt::format("{}{} {} \u2192 {}", out.empty() ? "" : ", ", what, x.empty() ? "?" : x, y.empty() ? "?" : y);
  };
  diff("commit", a.git_commit, b.git_commit);
  diff("toolkit", a.toolkit, b.toolkit);
  diff("CUDA runtime", a.cuda_runtime, b.cuda_runtime);
  diff("driver", a.driver, b.driver);
  diff("cuBLAS", a.cublas, b.cublas);
  diff("cuDNN", a.cudnn, b.cudnn);
  diff("GPU", a.gpu, b.gpu);
  diff("host", a.host, b.host);
  diff("label", a.label, b.label);
  return out.empty() ? "no recorded change: same commit, toolkit, driver, libraries, GPU and host" : out;
}

std::string describe_step(const history_view& h, const history_series& s, const history_series::step& st) {
  const history_run& before = h.runs[st.previous];
  const history_run& at = h.runs[st.run];
  return fmt::format("{} stepped {:+.1f}% ({}) at {} (run {}; {})", s.name, st.where.change_pct,
                     st.worse ? "worse" : "better", at.started_at, at.id, run_differences(before, at));
}

std::vector<new_step> steps_new_at_newest_run(const history_view& h) {
  std::vector<new_step> out;
  if (h.runs.size() < 2) return out;
  const std::size_t newest = h.runs.size() - 1;
  for (std::size_t i = 0; i < h.series.size(); ++i) {
    const auto& s = h.series[i];
    if (!s.values[newest]) continue;  // the newest run brought nothing to this series
    std::set<std::size_t> before;
    for (const auto& st : find_steps(s, newest, h.options.detection)) before.insert(st.run);
    for (const auto& st : s.steps)
      if (!before.count(st.run)) out.push_back({i, st});
  }
  return out;
}

}  // namespace cudabench
