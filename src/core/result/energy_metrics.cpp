// See energy_metrics.hpp.
#include "cudabench/energy_metrics.hpp"

#include <stdexcept>

#include <fmt/format.h>

namespace cudabench {
namespace {

// The first rule energy breaks, or "" when every repetition gives a trustworthy sample.
std::string energy_problem(const std::vector<repetition_reading>& reps, bool cold) {
  if (cold)
    return "cold L2: the energy counter's window holds the L2 flush before every run, so it is not the workload's "
           "energy alone";
  for (const auto& r : reps)
    if (!r.energy_counter_read)
      return "NVML reports no total energy for this GPU or driver (nvmlDeviceGetTotalEnergyConsumption)";
  for (std::size_t i = 0; i < reps.size(); ++i) {
    const double window = reps[i].per_run_ms * static_cast<double>(reps[i].runs);
    if (window < energy_min_window_ms)
      return fmt::format(
          "repetition {} lasted {:.0f} ms, shorter than the {:.0f} ms an energy sample needs (the counter advances "
          "about every 100 ms); --min-time-ms {:.0f} records energy",
          i, window, energy_min_window_ms, energy_advised_min_time_ms);
  }
  for (std::size_t i = 0; i < reps.size(); ++i) {
    if (reps[i].energy_counter_went_back)
      return fmt::format("the energy counter went backwards in repetition {} (driver reloaded?)", i);
    if (!reps[i].energy_mj || *reps[i].energy_mj == 0)
      return fmt::format("the energy counter did not advance in repetition {}", i);
  }
  return "";
}

}  // namespace

cycle_energy_metrics cycle_and_energy_metrics(const std::vector<repetition_reading>& reps, bool nvml_available,
                                              bool cold) {
  cycle_energy_metrics out;
  if (reps.empty()) return out;
  for (const auto& r : reps)
    if (!(r.per_run_ms > 0) || r.runs < 1) throw std::invalid_argument("cycle_and_energy_metrics: empty repetition");

  // Counted cycles likewise only when every repetition has its own counted clock.
  bool counted = true;
  for (const auto& r : reps) counted = counted && r.counted_mhz && *r.counted_mhz > 0;
  if (counted) {
    std::vector<double> mcycles;
    for (const auto& r : reps) mcycles.push_back(r.per_run_ms * *r.counted_mhz / 1e3);
    out.sm_cycles = make_metric("Mcycles", better::lower, std::move(mcycles));
  }
  if (!nvml_available) return out;

  // Cycles only when every repetition has its own clock reading: a sample must pair a repetition's
  // time with the clock of that repetition.
  bool clocks = true;
  for (const auto& r : reps) clocks = clocks && r.sm_mhz && *r.sm_mhz > 0;
  if (clocks) {
    std::vector<double> mcycles;
    for (const auto& r : reps) mcycles.push_back(r.per_run_ms * *r.sm_mhz / 1e3);  // ms x MHz = 1e3 cycles
    out.cycles = make_metric("Mcycles", better::lower, std::move(mcycles));
  }

  out.energy_absent = energy_problem(reps, cold);
  if (!out.energy_absent.empty()) return out;
  for (const auto& r : reps)
    out.energy_per_run.push_back(static_cast<double>(*r.energy_mj) / 1e3 / static_cast<double>(r.runs));
  out.energy_j = make_metric("J", better::lower, out.energy_per_run);
  return out;
}

std::optional<metric> work_per_joule_metric(const std::string& unit, double work_per_run,
                                            const std::vector<double>& energy_j_per_run) {
  if (energy_j_per_run.empty() || !(work_per_run > 0)) return std::nullopt;
  std::vector<double> v;
  for (double j : energy_j_per_run) v.push_back(work_per_run / j);
  return make_metric(unit, better::higher, std::move(v));
}

std::optional<metric> joules_per_work_metric(const std::string& unit, double work_per_run,
                                             const std::vector<double>& energy_j_per_run) {
  if (energy_j_per_run.empty() || !(work_per_run > 0)) return std::nullopt;
  std::vector<double> v;
  for (double j : energy_j_per_run) v.push_back(j / work_per_run);
  return make_metric(unit, better::lower, std::move(v));
}

}  // namespace cudabench
