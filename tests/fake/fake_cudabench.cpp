// A stand-in for cudabench that needs no GPU, so the CPU tests can drive `run --rounds`, `ab` and
// `--devices` end to end (fresh processes, interleaving, merging, comparing, fleets) on a machine
// without one. It understands `run ... -o FILE [--label L] [--device N]` and writes a result file
// of ten synthetic workloads whose per-round level is drawn from a seeded generator; the seed
// comes from FILE's name, so every round, side and GPU differs. `env --count` prints a GPU count.
//   FAKE_SHIFT=PCT        multiply fake/i=0's time by (1 + PCT/100) (a planted regression)
//   FAKE_FAIL=1           exit 3 without writing anything (a build that cannot run)
//   FAKE_FAIL_DEVICE=N    the same, on device N only (a GPU that fell off the bus)
//   FAKE_LOG=PATH         append "<label> <file>" per run (tests check the interleaving order)
//   FAKE_TUNING_LOG=PATH  append the --tuning-from argument ("-" when absent)
//   FAKE_DEVICE_COUNT=N   what `env --count` prints (unset: "no CUDA device found", exit 3)
//   FAKE_SLOW_DEVICE=D    device D is FAKE_SLOW_PCT (default 20) % slower on every workload, its
//                         SM clock 1410 MHz instead of 1980 (a GPU stuck at low clocks). D is N,
//                         or NODE:N to match only where $SLURMD_NODENAME (else the host) is NODE
//   FAKE_BUSY_DEVICE=N    device N records another process using it (environment.other_processes)
//   FAKE_BARRIER=DIR:N    wait (up to 10 s) until N fakes have started, each leaving a file in DIR:
//                         proves that the GPUs of a --devices run are measured at the same time
//   FAKE_WORKLOADS=N      write N workloads instead of ten (the report's large-suite check)
//   FAKE_CLOCKS=1         every 7th workload throttles (its SM clock drops, sw_power_cap), for the
//                         report's clock and power charts
//   FAKE_SLEEP_MS=N       take N ms before writing the file (a run of known length: ab --time-limit)
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cudabench/result.hpp"

using namespace cudabench;

namespace {

std::string env_or(const char* name, const std::string& fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}

std::string node_name() {
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  return env_or("SLURMD_NODENAME", host);
}

bool is_slow(int device) {
  const std::string spec = env_or("FAKE_SLOW_DEVICE", "");
  if (spec.empty()) return false;
  const auto colon = spec.find(':');
  if (colon != std::string::npos && spec.substr(0, colon) != node_name()) return false;
  return std::atoi(spec.c_str() + (colon == std::string::npos ? 0 : colon + 1)) == device;
}

// Returns false when the others did not show up in time.
bool barrier(int device) {
  const std::string spec = env_or("FAKE_BARRIER", "");
  const auto colon = spec.rfind(':');
  if (spec.empty() || colon == std::string::npos) return true;
  const std::string dir = spec.substr(0, colon);
  const auto want = static_cast<std::size_t>(std::atoi(spec.c_str() + colon + 1));
  std::filesystem::create_directories(dir);
  std::ofstream(dir + "/started-" + std::to_string(device) + "-" + std::to_string(getpid())) << "x";
  for (int i = 0; i < 1000; ++i) {
    std::size_t n = 0;
    for (const auto& e : std::filesystem::directory_iterator(dir))
      n += e.path().filename().string().rfind("started-", 0) == 0;
    if (n >= want) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 3 && std::string(argv[1]) == "env" && std::string(argv[2]) == "--count") {
    const char* n = std::getenv("FAKE_DEVICE_COUNT");
    if (!n) {
      std::fprintf(stderr, "fake_cudabench: error: no CUDA device found (FAKE_DEVICE_COUNT unset)\n");
      return 3;
    }
    std::printf("%s\n", n);
    return 0;
  }
  std::string out, label = "CUDA 13.0", tuning_from = "-", suite_path = "fake.json";
  int device = 0;
  for (int i = 1; i + 1 < argc; ++i) {
    const std::string a = argv[i];
    if (a == "-o") out = argv[i + 1];
    if (a == "--label") label = argv[i + 1];
    if (a == "--tuning-from") tuning_from = argv[i + 1];
    if (a == "--device") device = std::atoi(argv[i + 1]);
    if (a == "--suite") suite_path = argv[i + 1];
  }
  if (argc < 2 || std::string(argv[1]) != "run" || out.empty()) {
    std::fprintf(stderr, "fake_cudabench: expected `run ... -o FILE` or `env --count`\n");
    return 2;
  }
  if (const char* f = std::getenv("FAKE_FAIL"); f && std::string(f) == "1") {
    std::fprintf(stderr, "fake_cudabench: no GPU (FAKE_FAIL=1)\n");
    return 3;
  }
  if (env_or("FAKE_FAIL_DEVICE", "-") == std::to_string(device)) {
    std::fprintf(stderr, "fake_cudabench: error: --device %d: unknown error (FAKE_FAIL_DEVICE)\n", device);
    return 3;
  }
  if (!barrier(device)) {
    std::fprintf(stderr, "fake_cudabench: error: the other GPUs' processes never started (FAKE_BARRIER)\n");
    return 4;
  }
  for (const char* var : {"FAKE_LOG", "FAKE_TUNING_LOG"})
    if (const char* log = std::getenv(var)) {
      if (FILE* f = std::fopen(log, "a")) {
        std::fprintf(f, "%s %s\n", std::string(var) == "FAKE_LOG" ? label.c_str() : tuning_from.c_str(), out.c_str());
        std::fclose(f);
      }
    }
  if (const char* ms = std::getenv("FAKE_SLEEP_MS"))
    std::this_thread::sleep_for(std::chrono::milliseconds(std::atoi(ms)));
  const double shift = std::getenv("FAKE_SHIFT") ? std::atof(std::getenv("FAKE_SHIFT")) : 0.0;
  const bool slow = is_slow(device);
  const double slow_factor = slow ? 1.0 + std::atof(env_or("FAKE_SLOW_PCT", "20").c_str()) / 100.0 : 1.0;

  std::mt19937_64 rng(std::hash<std::string>{}(out));
  std::normal_distribution<double> round_level(0.0, 0.005), within(0.0, 0.001);
  result_file r;
  r.tool = {{"name", "cudabench"}, {"version", "fake"}};
  r.environment = {{"label", label},
                   {"hostname", node_name()},
                   {"cuda_runtime", "13.0"},
                   {"driver_version", "580.00"},
                   {"device",
                    {{"index", device},
                     {"name", "Fake GPU"},
                     {"uuid", "GPU-fake-" + std::to_string(device)},
                     {"pci_bus_id", "00000000:0" + std::to_string(device % 10) + ":00.0"},
                     {"max_sm_clock_mhz", 1980},
                     {"power_limit_w", 700.0}}}};
  if (env_or("FAKE_BUSY_DEVICE", "-") == std::to_string(device))
    r.environment["other_processes"] = {{{"pid", 4242}, {"name", "python3"}, {"used_memory_bytes", 21474836480ull}}};
  // The suite's name as a real run records it (ab --resume checks it); no sha256: the fake never reads the file.
  r.suite = {{"name", std::filesystem::path(suite_path).stem().string()}, {"source", suite_path}};
  r.settings = {{"repetitions", 5}};
  r.started_at = r.finished_at = utc_now_iso8601();
  const int count = std::atoi(env_or("FAKE_WORKLOADS", "10").c_str());
  const bool clocks = env_or("FAKE_CLOCKS", "0") == "1";
  for (int i = 0; i < count; ++i) {
    workload_result w;
    w.id = "fake/i=" + std::to_string(i);
    w.kind = "train_step";  // any documented kind: its noise model applies
    const double level =
        (1.0 + 0.1 * i) * (1.0 + round_level(rng)) * (i == 0 ? 1.0 + shift / 100.0 : 1.0) * slow_factor;
    std::vector<double> s;
    const bool hot = clocks && i % 7 == 3;
    for (int k = 0; k < 5; ++k) {
      s.push_back(level * (1.0 + within(rng)));
      if (clocks) {
        w.clocks.sm_mhz.push_back(hot && k >= 2 ? 1755.0 - 30 * k : 1980.0);
        w.clocks.power_w.push_back(hot ? 699.0 + k * 0.2 : 420.0 + 10 * (i % 5) + k);
      } else {
        w.clocks.sm_mhz.push_back(slow ? 1410 : 1980);
        w.clocks.power_w.push_back(slow ? 450 : 690);
      }
    }
    if (hot) {
      w.clocks.throttled = true;
      w.clocks.throttle_reasons = {"sw_power_cap"};
    }
    w.metrics.emplace_back("step_ms", make_metric("ms", better::lower, s));
    w.tuning = {{"variant", i % 3}};
    r.workloads.push_back(std::move(w));
  }
  write_result_file(r, out);
  return 0;
}
