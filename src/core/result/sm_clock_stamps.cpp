// See sm_clock_stamps.hpp.
#include "cudabench/sm_clock_stamps.hpp"

#include <map>

#include "cudabench/stats.hpp"

namespace cudabench {

std::optional<double> average_sm_clock_mhz(const std::vector<sm_stamp>& before, const std::vector<sm_stamp>& after) {
  // Two blocks of one stamp launch can land on the same SM; either stamp is that SM's counter at
  // about that moment, so the first one seen stands for it.
  std::map<std::uint32_t, sm_stamp> first;
  for (const auto& s : before)
    if (s.written) first.emplace(s.smid, s);
  std::map<std::uint32_t, double> mhz_by_sm;
  for (const auto& s : after) {
    if (!s.written || mhz_by_sm.count(s.smid)) continue;
    const auto it = first.find(s.smid);
    if (it == first.end()) continue;
    const sm_stamp& b = it->second;
    if (s.ns <= b.ns || s.ns - b.ns < sm_clock_min_window_ns || s.cycles <= b.cycles) return std::nullopt;
    // cycles per ns = GHz; x 1e3 = MHz
    mhz_by_sm[s.smid] = static_cast<double>(s.cycles - b.cycles) / static_cast<double>(s.ns - b.ns) * 1e3;
  }
  if (mhz_by_sm.empty()) return std::nullopt;
  std::vector<double> v;
  for (const auto& [sm, mhz] : mhz_by_sm) v.push_back(mhz);
  return median(std::move(v));
}

}  // namespace cudabench
