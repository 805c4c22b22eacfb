// Metric helpers for workload::metrics() (workload.hpp).
#include <stdexcept>

#include "cudabench/gpu/workload.hpp"

namespace cudabench {

metric time_metric(const std::vector<double>& per_run_ms) { return make_metric("ms", better::lower, per_run_ms); }

metric rate_metric(const std::string& unit, double amount_per_run, double scale,
                   const std::vector<double>& per_run_ms) {
  std::vector<double> rates;
  rates.reserve(per_run_ms.size());
  for (double ms : per_run_ms) {
    if (!(ms > 0)) throw std::invalid_argument("rate_metric: non-positive time sample");
    rates.push_back(amount_per_run / (ms * 1e-3) / scale);
  }
  return make_metric(unit, better::higher, std::move(rates));
}

}  // namespace cudabench
