// See fleet.hpp. make_fleet: the checks, the per-workload summary and outliers, the readable
// lines, differences and notes. The JSON side is fleet_json.cpp.
#include "cudabench/fleet.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "cudabench/compare.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/gpu_spread_floor.hpp"
#include "cudabench/round_test.hpp"
#include "cudabench/run_summary.hpp"
#include "cudabench/stats.hpp"

namespace cudabench {

std::string fleet_gpu::name() const { return fmt::format("{} GPU {}", host, index); }

std::size_t fleet_workload::ok_count() const {
  return static_cast<std::size_t>(
      std::count_if(values.begin(), values.end(), [](const fleet_value& v) { return v.value.has_value(); }));
}

std::size_t fleet_file::ok_gpus() const {
  return static_cast<std::size_t>(
      std::count_if(gpus.begin(), gpus.end(), [](const fleet_gpu& g) { return g.result.has_value(); }));
}

namespace {

using oj = nlohmann::ordered_json;

const oj* env_field(const fleet_gpu& g, const char* key, bool in_device) {
  if (!g.result) return nullptr;
  const oj* obj = &g.result->environment;
  if (in_device) {
    auto d = obj->find("device");
    if (d == obj->end() || !d->is_object()) return nullptr;
    obj = &*d;
  }
  auto it = obj->find(key);
  return it == obj->end() || it->is_null() ? nullptr : &*it;
}

std::optional<double> env_number(const fleet_gpu& g, const char* key, bool in_device) {
  const oj* v = env_field(g, key, in_device);
  return v && v->is_number() ? std::optional<double>(v->get<double>()) : std::nullopt;
}

std::string env_text(const fleet_gpu& g, const char* key, bool in_device) {
  const oj* v = env_field(g, key, in_device);
  if (!v) return "-";
  return v->is_string() ? v->get<std::string>() : v->dump();
}

std::optional<double> median_if_any(std::vector<double> v) {
  if (v.empty()) return std::nullopt;
  return median(std::move(v));
}

std::string suite_key(const result_file& r) {
  auto get = [&](const char* k) {
    auto it = r.suite.find(k);
    return it != r.suite.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  return get("name") + " (sha256 " + get("sha256").substr(0, 12) + ")";
}

bool memory_unit(const std::string& unit) {
  return unit == "MiB" || unit == "MB" || unit == "GiB" || unit == "GB" || unit == "bytes" || unit == "B";
}

std::string direction_word(const fleet_workload& w, bool worse) {
  if (memory_unit(w.unit)) return worse ? "worse" : "better";
  return worse ? "slower" : "faster";
}

std::string z_text(double z) {
  return std::isinf(z) ? (z > 0 ? "+inf (MAD 0)" : "-inf (MAD 0)") : fmt::format("{:+.1f}", z);
}

// "SM clock 1410 MHz vs fleet 1980; max SM clock 1980 MHz; power limit 500 W vs fleet 700 W;
// throttle sw_power_cap": why a GPU may be off, beside every outlier line.
std::string gpu_context(const fleet_file& f, const fleet_workload& w, const fleet_value& v,
                        std::optional<double> fleet_power_limit, std::optional<double> fleet_max_clock) {
  const fleet_gpu& g = f.gpus[v.gpu];
  std::vector<std::string> parts;
  if (v.sm_mhz)
    parts.push_back(w.fleet_sm_mhz ? fmt::format("SM clock {:.0f} MHz vs fleet {:.0f}", *v.sm_mhz, *w.fleet_sm_mhz)
                                   : fmt::format("SM clock {:.0f} MHz", *v.sm_mhz));
  if (auto mx = env_number(g, "max_sm_clock_mhz", true)) {
    if (fleet_max_clock && *fleet_max_clock != *mx)
      parts.push_back(fmt::format("max SM clock {:.0f} vs fleet {:.0f} MHz", *mx, *fleet_max_clock));
    else parts.push_back(fmt::format("max SM clock {:.0f} MHz", *mx));
  }
  if (auto pl = env_number(g, "power_limit_w", true)) {
    if (fleet_power_limit && *fleet_power_limit != *pl)
      parts.push_back(fmt::format("power limit {:.0f} W vs fleet {:.0f} W", *pl, *fleet_power_limit));
    else parts.push_back(fmt::format("power limit {:.0f} W (as the fleet)", *pl));
  }
  if (!v.throttle_reasons.empty()) parts.push_back(fmt::format("throttle {}", fmt::join(v.throttle_reasons, ",")));
  if (parts.empty()) return "no clock or power data recorded";
  return fmt::format("{}", fmt::join(parts, "; "));
}

std::vector<std::string> workload_order(const std::vector<fleet_gpu>& gpus) {
  std::vector<std::string> order;
  std::set<std::string> seen;
  for (const auto& g : gpus)
    if (g.result)
      for (const auto& w : g.result->workloads)
        if (seen.insert(w.id).second) order.push_back(w.id);
  return order;
}

fleet_workload summarize_workload(const std::vector<fleet_gpu>& gpus, const std::string& id, const outlier_rule& rule) {
  fleet_workload out;
  out.id = id;
  const workload_result* desc = nullptr;  // the first GPU's record with metrics (kind, params, headline)
  const workload_result* any = nullptr;
  for (const auto& g : gpus) {
    if (!g.result) continue;
    for (const auto& w : g.result->workloads)
      if (w.id == id) {
        if (!any) any = &w;
        if (!desc && !w.metrics.empty()) desc = &w;
      }
  }
  if (!desc) desc = any;
  out.kind = desc->kind;
  out.params = desc->params;
  std::vector<std::string> units;
  for (const auto& [n, m] : desc->metrics) units.push_back(m.unit);
  if (!desc->metrics.empty()) {
    out.metric = desc->metrics.front().first;
    out.unit = desc->metrics.front().second.unit;
    out.direction = desc->metrics.front().second.direction;
  }
  out.name = readable_name(id, out.kind, out.params, out.metric, out.unit, units);

  std::vector<double> ok_values, clocks;
  for (std::size_t g = 0; g < gpus.size(); ++g) {
    if (!gpus[g].result) continue;
    for (const auto& w : gpus[g].result->workloads) {
      if (w.id != id) continue;
      fleet_value v;
      v.gpu = g;
      v.state = w.state;
      v.message = w.message;
      v.sm_mhz = median_if_any(w.clocks.sm_mhz);
      v.power_w = median_if_any(w.clocks.power_w);
      v.throttle_reasons = w.clocks.throttle_reasons;
      if (w.state == status::ok)
        if (const metric* m = out.metric.empty() ? nullptr : w.find_metric(out.metric); m && !m->samples.empty()) {
          v.value = median(round_medians(m->samples, m->rounds));
          ok_values.push_back(*v.value);
          if (v.sm_mhz) clocks.push_back(*v.sm_mhz);
        }
      out.values.push_back(std::move(v));
    }
  }
  out.fleet_sm_mhz = median_if_any(clocks);
  if (!ok_values.empty()) {
    out.analysis = find_outliers(ok_values, gpu_spread_floor(out.kind, out.metric, out.params), rule);
    std::size_t k = 0;
    for (auto& v : out.values)
      if (v.value) v.verdict = out.analysis.per_value[k++];
  }
  return out;
}

void find_differences(fleet_file& f) {
  struct field {
    const char* name;
    const char* key;
    bool in_device;
  };
  static const field kFields[] = {{"device", "name", true},
                                  {"power_limit_w", "power_limit_w", true},
                                  {"max_sm_clock_mhz", "max_sm_clock_mhz", true},
                                  {"driver_version", "driver_version", false},
                                  {"cuda_runtime", "cuda_runtime", false},
                                  {"cublas", "cublas", false},
                                  {"cudnn", "cudnn", false},
                                  {"label", "label", false},
                                  {"ecc", "ecc", true},
                                  {"mig", "mig", true}};
  for (const auto& fd : kFields) {
    std::vector<std::pair<std::string, std::vector<std::string>>> groups;
    for (const auto& g : f.gpus) {
      if (!g.result) continue;
      const std::string v = env_text(g, fd.key, fd.in_device);
      auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& p) { return p.first == v; });
      if (it == groups.end()) groups.push_back({v, {g.name()}});
      else it->second.push_back(g.name());
    }
    if (groups.size() > 1) f.differences.push_back({fd.name, std::move(groups)});
  }
}

std::string bytes_text(double b) { return fmt::format("{:.1f} GiB", b / (1024.0 * 1024.0 * 1024.0)); }

void add_notes(fleet_file& f) {
  for (const auto& g : f.gpus) {
    if (!g.result) {
      f.notes.push_back(fmt::format("{}: no result ({})", g.name(), g.note.empty() ? "no file" : g.note));
      continue;
    }
    if (g.exit_code != 0)
      f.notes.push_back(fmt::format("{}: its process exited with code {}{}", g.name(), g.exit_code,
                                    g.note.empty() ? " (the result may be partial)" : "; " + g.note));
    const auto it = g.result->environment.find("other_processes");
    if (it == g.result->environment.end() || !it->is_array() || it->empty()) continue;
    std::vector<std::string> procs;
    for (const auto& p : *it) {
      std::string s = fmt::format("pid {}", p.value("pid", 0));
      if (p.contains("name") && p["name"].is_string() && !p["name"].get<std::string>().empty())
        s += fmt::format(" ({})", p["name"].get<std::string>());
      if (p.contains("used_memory_bytes") && p["used_memory_bytes"].is_number())
        s += ", " + bytes_text(p["used_memory_bytes"].get<double>());
      procs.push_back(s);
    }
    f.notes.push_back(
        fmt::format("{}: {} other process{} held the GPU when it was measured ({}); its numbers are suspect", g.name(),
                    procs.size(), procs.size() == 1 ? "" : "es", fmt::join(procs, "; ")));
  }
}

}  // namespace

fleet_file make_fleet(std::vector<fleet_gpu> gpus, const outlier_rule& rule, const std::string& label) {
  std::stable_sort(gpus.begin(), gpus.end(), [](const fleet_gpu& a, const fleet_gpu& b) {
    return a.host != b.host ? a.host < b.host : a.index < b.index;
  });
  for (std::size_t i = 1; i < gpus.size(); ++i)
    if (gpus[i].host == gpus[i - 1].host && gpus[i].index == gpus[i - 1].index)
      throw input_error(fmt::format("{} appears twice ({} and {})", gpus[i].name(),
                                    gpus[i - 1].file.empty() ? "-" : gpus[i - 1].file,
                                    gpus[i].file.empty() ? "-" : gpus[i].file));
  const fleet_gpu* first = nullptr;
  for (const auto& g : gpus)
    if (g.result && !first) first = &g;
  if (!first)
    throw input_error(fmt::format("none of the {} GPU{} produced a result", gpus.size(), gpus.size() == 1 ? "" : "s"));
  for (const auto& g : gpus)
    if (g.result && suite_key(*g.result) != suite_key(*first->result))
      throw input_error(fmt::format("{} ran suite {} but {} ran {}: a fleet compares one suite", g.name(),
                                    suite_key(*g.result), first->name(), suite_key(*first->result)));

  fleet_file f;
  f.created_at = utc_now_iso8601();
  f.label = label.empty() ? first->result->label() : label;
  f.suite = first->result->suite;
  f.rule = rule;
  f.gpus = std::move(gpus);

  std::vector<double> limits, max_clocks;
  for (const auto& g : f.gpus) {
    if (auto v = env_number(g, "power_limit_w", true)) limits.push_back(*v);
    if (auto v = env_number(g, "max_sm_clock_mhz", true)) max_clocks.push_back(*v);
  }
  const auto fleet_limit = median_if_any(limits), fleet_max_clock = median_if_any(max_clocks);

  for (const auto& id : workload_order(f.gpus)) f.workloads.push_back(summarize_workload(f.gpus, id, rule));
  // Readable names that two workloads share (kinds compare does not describe) fall back to the id.
  std::map<std::string, int> name_count;
  for (const auto& w : f.workloads) ++name_count[w.name];
  for (auto& w : f.workloads)
    if (name_count[w.name] > 1) w.name = w.metric.empty() ? w.id : fmt::format("{} ({})", w.id, w.unit);

  std::vector<int> flagged(f.gpus.size(), 0), judged(f.gpus.size(), 0), worse_n(f.gpus.size(), 0);
  std::vector<const fleet_value*> worst(f.gpus.size(), nullptr);
  std::vector<std::size_t> worst_w(f.gpus.size(), 0);
  for (std::size_t wi = 0; wi < f.workloads.size(); ++wi) {
    const fleet_workload& w = f.workloads[wi];
    for (const auto& v : w.values) {
      if (!v.value || !w.analysis.judged) continue;
      ++judged[v.gpu];
      if (!v.verdict.outlier) continue;
      const bool worse = w.direction == better::lower ? v.verdict.deviation_pct > 0 : v.verdict.deviation_pct < 0;
      ++flagged[v.gpu];
      worse_n[v.gpu] += worse;
      if (!worst[v.gpu] || std::abs(v.verdict.deviation_pct) > std::abs(worst[v.gpu]->verdict.deviation_pct)) {
        worst[v.gpu] = &v;
        worst_w[v.gpu] = wi;
      }
      fleet_outlier o;
      o.gpu = v.gpu;
      o.workload = wi;
      o.worse = worse;
      o.line = fmt::format("{}: {}: {} vs fleet median {} ({:+.1f}%, robust z {}): {}; {}", f.gpus[v.gpu].name(),
                           w.name, format_value(*v.value), format_value(w.analysis.median), v.verdict.deviation_pct,
                           z_text(v.verdict.robust_z), direction_word(w, worse),
                           gpu_context(f, w, v, fleet_limit, fleet_max_clock));
      f.outliers.push_back(std::move(o));
    }
  }
  for (std::size_t g = 0; g < f.gpus.size(); ++g) {
    if (!flagged[g]) continue;
    const fleet_workload& w = f.workloads[worst_w[g]];
    const fleet_value& v = *worst[g];
    const std::string device = env_text(f.gpus[g], "name", true), bus = env_text(f.gpus[g], "pci_bus_id", true);
    const bool v_worse = w.direction == better::lower ? v.verdict.deviation_pct > 0 : v.verdict.deviation_pct < 0;
    fleet_outlier_gpu og;
    og.gpu = g;
    og.flagged = flagged[g];
    og.judged = judged[g];
    og.line = fmt::format(
        "{} ({}{}): outlier on {} of {} workloads ({} worse, {} better); worst {} {:+.1f}% "
        "(robust z {}), {}; {}",
        f.gpus[g].name(), device, bus == "-" ? "" : ", " + bus, flagged[g], judged[g], worse_n[g],
        flagged[g] - worse_n[g], w.name, v.verdict.deviation_pct, z_text(v.verdict.robust_z),
        direction_word(w, v_worse), gpu_context(f, w, v, fleet_limit, fleet_max_clock));
    f.outlier_gpus.push_back(std::move(og));
  }
  find_differences(f);
  add_notes(f);
  return f;
}

}  // namespace cudabench
