// A stand-in for cudabench that needs no GPU, so the CPU tests can drive `run --rounds` and `ab`
// end to end (fresh processes, interleaving, merging, comparing) on a machine without one.
// It understands `run ... -o FILE [--label L]` and writes a result file of ten synthetic workloads
// whose per-round level is drawn from a seeded generator; the seed comes from FILE's name, so
// every round and side differs.
//   FAKE_SHIFT=PCT       multiply fake/i=0's time by (1 + PCT/100) (a planted regression)
//   FAKE_FAIL=1          exit 3 without writing anything (a build that cannot run)
//   FAKE_LOG=PATH        append "<label> <file>" per run (tests check the interleaving order)
//   FAKE_TUNING_LOG=PATH append the --tuning-from argument ("-" when absent)
//   FAKE_WORKLOADS=N     write N workloads instead of ten (the report's large-suite check)
//   FAKE_CLOCKS=1        record an SM clock and board power per repetition; every 7th workload
//                        throttles (its clock drops, sw_power_cap)
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "cudabench/result.hpp"

using namespace cudabench;

int main(int argc, char** argv) {
  std::string out, label = "CUDA 13.0", tuning_from = "-";
  for (int i = 1; i + 1 < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-o") out = argv[i + 1];
    if (a == "--label") label = argv[i + 1];
    if (a == "--tuning-from") tuning_from = argv[i + 1];
  }
  if (argc < 2 || std::string(argv[1]) != "run" || out.empty()) {
    std::fprintf(stderr, "fake_cudabench: expected `run ... -o FILE`\n");
    return 2;
  }
  if (const char* f = std::getenv("FAKE_FAIL"); f && std::string(f) == "1") {
    std::fprintf(stderr, "fake_cudabench: no GPU (FAKE_FAIL=1)\n");
    return 3;
  }
  for (const char* var : {"FAKE_LOG", "FAKE_TUNING_LOG"})
    if (const char* log = std::getenv(var)) {
      if (FILE* f = std::fopen(log, "a")) {
        std::fprintf(f, "%s %s\n", std::string(var) == "FAKE_LOG" ? label.c_str() : tuning_from.c_str(), out.c_str());
        std::fclose(f);
      }
    }
  const double shift = std::getenv("FAKE_SHIFT") ? std::atof(std::getenv("FAKE_SHIFT")) : 0.0;

  std::mt19937_64 rng(std::hash<std::string>{}(out));
  std::normal_distribution<double> round_level(0.0, 0.005), within(0.0, 0.001);
  result_file r;
  r.tool = {{"name", "cudabench"}, {"version", "fake"}};
  r.environment = {{"label", label}, {"cuda_runtime", "13.0"}, {"device", {{"name", "Fake GPU"}}}};
  r.suite = {{"name", "fake"}, {"source", "fake.json"}, {"sha256", "0"}};
  r.settings = {{"repetitions", 5}};
  r.started_at = r.finished_at = utc_now_iso8601();
  const int count = std::getenv("FAKE_WORKLOADS") ? std::atoi(std::getenv("FAKE_WORKLOADS")) : 10;
  const bool clocks = std::getenv("FAKE_CLOCKS") && std::string(std::getenv("FAKE_CLOCKS")) == "1";
  if (clocks) {
    r.environment["device"]["max_sm_clock_mhz"] = 1980;
    r.environment["device"]["power_limit_w"] = 700.0;
  }
  for (int i = 0; i < count; ++i) {
    workload_result w;
    w.id = "fake/i=" + std::to_string(i);
    w.kind = "train_step";  // any documented kind: its noise model applies
    const double level = (1.0 + 0.1 * i) * (1.0 + round_level(rng)) * (i == 0 ? 1.0 + shift / 100.0 : 1.0);
    std::vector<double> s;
    for (int k = 0; k < 5; ++k) s.push_back(level * (1.0 + within(rng)));
    w.metrics.emplace_back("step_ms", make_metric("ms", better::lower, s));
    w.tuning = {{"variant", i % 3}};
    if (clocks) {
      const bool hot = i % 7 == 3;
      for (int k = 0; k < 5; ++k) {
        w.clocks.sm_mhz.push_back(hot && k >= 2 ? 1755.0 - 30 * k : 1980.0);
        w.clocks.power_w.push_back(hot ? 699.0 + k * 0.2 : 420.0 + 10 * (i % 5) + k);
      }
      if (hot) {
        w.clocks.throttled = true;
        w.clocks.throttle_reasons = {"sw_power_cap"};
      }
    }
    r.workloads.push_back(std::move(w));
  }
  write_result_file(r, out);
  return 0;
}
