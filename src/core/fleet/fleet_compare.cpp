// See fleet_compare.hpp.
#include "cudabench/fleet_compare.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "cudabench/round_test.hpp"
#include "cudabench/stats.hpp"

namespace cudabench {
namespace {

using oj = nlohmann::ordered_json;

const workload_result* find(const result_file& r, const std::string& id) {
  for (const auto& w : r.workloads)
    if (w.id == id) return &w;
  return nullptr;
}

// The environment compare reads (GPU model, driver, runtime, libraries), from the first GPU, plus
// what the fleet is made of.
oj fleet_environment(const fleet_file& f, const result_file& first) {
  oj env;
  env["label"] = f.label;
  for (const char* key : {"driver_version", "cuda_driver_api", "cuda_runtime", "cublas", "cudnn"})
    if (first.environment.contains(key)) env[key] = first.environment[key];
  if (const auto d = first.environment.find("device"); d != first.environment.end() && d->is_object())
    env["device"] = {{"name", d->value("name", "")}};
  oj hosts = oj::array();
  for (const auto& g : f.gpus)
    if (hosts.empty() || hosts.back() != g.host) hosts.push_back(g.host);
  env["fleet"] = {{"gpus", f.ok_gpus()}, {"hosts", std::move(hosts)}};
  return env;
}

}  // namespace

result_file fleet_as_result(const fleet_file& f) {
  const result_file* first = nullptr;
  for (const auto& g : f.gpus)
    if (g.result && !first) first = &*g.result;
  result_file out;
  out.tool = f.tool;
  out.build = first->build;
  out.environment = fleet_environment(f, *first);
  out.suite = f.suite;
  out.settings = first->settings;
  out.settings["fleet_gpus"] = f.ok_gpus();
  out.started_at = first->started_at;
  out.finished_at = f.created_at;
  out.interleave = f.interleave;
  out.rounds = std::max<int>(1, static_cast<int>(f.ok_gpus()));
  for (std::size_t g = 0; g < f.gpus.size(); ++g)
    if (f.gpus[g].result) out.round_log.push_back({{"round", static_cast<int>(g)}, {"gpu", f.gpus[g].name()}});

  for (const auto& fw : f.workloads) {
    workload_result w;
    w.id = fw.id;
    w.kind = fw.kind;
    w.params = fw.params;
    std::vector<std::string> names;
    for (const auto& v : fw.values) {
      const workload_result* gw = find(*f.gpus[v.gpu].result, fw.id);
      if (v.state != status::ok && w.state == status::ok) {
        w.state = v.state;
        w.message = fmt::format("{}: {}", f.gpus[v.gpu].name(), v.message);
      }
      for (const auto& [n, m] : gw->metrics)
        if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
      if (v.sm_mhz) w.clocks.sm_mhz.push_back(*v.sm_mhz);
      if (v.power_w) w.clocks.power_w.push_back(*v.power_w);
      for (const auto& r : gw->clocks.throttle_reasons)
        if (std::find(w.clocks.throttle_reasons.begin(), w.clocks.throttle_reasons.end(), r) ==
            w.clocks.throttle_reasons.end())
          w.clocks.throttle_reasons.push_back(r);
      w.clocks.throttled = w.clocks.throttled || gw->clocks.throttled;
      if (gw->peak_memory_bytes)
        w.peak_memory_bytes = std::max(w.peak_memory_bytes.value_or(0), *gw->peak_memory_bytes);
    }
    for (const auto& name : names) {
      std::vector<double> samples;
      std::vector<int> gpu_of;
      const metric* proto = nullptr;
      for (const auto& v : fw.values) {
        if (v.state != status::ok) continue;
        const metric* m = find(*f.gpus[v.gpu].result, fw.id)->find_metric(name);
        if (!m || m->samples.empty()) continue;
        if (!proto) proto = m;
        samples.push_back(median(round_medians(m->samples, m->rounds)));
        gpu_of.push_back(static_cast<int>(v.gpu));
      }
      if (samples.empty()) continue;
      metric m = make_metric(proto->unit, proto->direction, std::move(samples));
      m.rounds = std::move(gpu_of);
      w.metrics.emplace_back(name, std::move(m));
    }
    out.workloads.push_back(std::move(w));
  }
  return out;
}

std::vector<matched_gpu> match_gpus(const std::vector<const fleet_file*>& fleets, std::vector<std::string>& missing) {
  std::vector<matched_gpu> out;
  if (fleets.empty()) return out;
  for (const auto& g : fleets[0]->gpus) {
    if (!g.result) continue;
    matched_gpu m{g.name(), {&*g.result}};
    for (std::size_t i = 1; i < fleets.size(); ++i) {
      const auto& gs = fleets[i]->gpus;
      const auto it = std::find_if(gs.begin(), gs.end(), [&](const fleet_gpu& o) {
        return o.host == g.host && o.index == g.index && o.result;
      });
      if (it == gs.end()) break;
      m.results.push_back(&*it->result);
    }
    if (m.results.size() == fleets.size()) out.push_back(std::move(m));
    else missing.push_back(g.name());
  }
  return out;
}

}  // namespace cudabench
