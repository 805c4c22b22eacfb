// Builders for in-memory result files used by the compare and report tests.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "cudabench/result.hpp"

namespace cudabench::test {

inline workload_result matmul_workload(const std::string& dtype, int m, int n, int k, std::vector<double> time_ms,
                                       status state = status::ok, std::string message = "") {
  workload_result w;
  w.id = "matmul/dtype=" + dtype + "/m=" + std::to_string(m) + "/n=" + std::to_string(n) + "/k=" + std::to_string(k);
  w.kind = "matmul";
  w.params = {{"dtype", dtype}, {"m", m}, {"n", n}, {"k", k}};
  w.state = state;
  w.message = std::move(message);
  if (state == status::ok) {
    const double flops = 2.0 * m * n * k;
    std::vector<double> tflops;
    for (double t : time_ms) tflops.push_back(flops / (t * 1e-3) / 1e12);
    w.metrics.emplace_back("time_ms", make_metric("ms", better::lower, time_ms));
    w.metrics.emplace_back("tflops", make_metric("TFLOP/s", better::higher, tflops));
  }
  return w;
}

// A workload with one metric named `metric`.
inline workload_result single_metric_workload(const std::string& id, const std::string& kind, const std::string& metric,
                                              const std::string& unit, better dir, std::vector<double> samples) {
  workload_result w;
  w.id = id;
  w.kind = kind;
  w.metrics.emplace_back(metric, make_metric(unit, dir, std::move(samples)));
  return w;
}

// A workload whose metric was measured in several rounds: round r's three samples are
// level_r x (0.999, 1, 1.001), tagged with round index r.
inline workload_result rounds_workload(const std::string& id, const std::string& kind, const std::string& metric,
                                       const std::string& unit, better dir, const std::vector<double>& round_levels,
                                       nlohmann::ordered_json params = nlohmann::ordered_json::object()) {
  std::vector<double> samples;
  std::vector<int> idx;
  for (std::size_t r = 0; r < round_levels.size(); ++r)
    for (double f : {0.999, 1.0, 1.001}) {
      samples.push_back(round_levels[r] * f);
      idx.push_back(static_cast<int>(r));
    }
  workload_result w = single_metric_workload(id, kind, metric, unit, dir, samples);
  w.params = std::move(params);
  w.metrics[0].second.rounds = std::move(idx);
  return w;
}

inline result_file make_file(const std::string& label, std::vector<workload_result> ws,
                             const std::string& gpu = "NVIDIA H200", const std::string& toolkit = "12.4.131") {
  result_file r;
  r.environment = {{"label", label},
                   {"driver_version", "580.159.04"},
                   {"cuda_runtime", toolkit.substr(0, 4)},
                   {"cublas", "12.4.5"},
                   {"cudnn", "9.1.0"},
                   {"device", {{"name", gpu}}}};
  r.build = {{"cuda_toolkit", toolkit}, {"cuda_architectures", "90"}, {"build_type", "Release"}};
  r.workloads = std::move(ws);
  return r;
}

// make_file, marked as one side of an interleaved `ab` session (between-session noise cancels).
inline result_file session_file(const std::string& label, std::vector<workload_result> ws, int rounds = 5) {
  result_file r = make_file(label, std::move(ws));
  r.rounds = rounds;
  r.interleave = {{"session", "test-session"}, {"side", label}};
  return r;
}

}  // namespace cudabench::test
