// See devices.hpp.
#include "cli/devices.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/subprocess.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/nvml.hpp"

namespace cudabench::cli {
namespace {

int parse_index(const std::string& s, const std::string& spec) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos || s.size() > 4)
    throw input_error(
        fmt::format("--devices {}: \"{}\" is not a device index (expected all, or indices such as "
                    "0,2,5 or 0-3)",
                    spec, s));
  return std::stoi(s);
}

bool env_set(const char* name) { return std::getenv(name) != nullptr; }

// Counts through `counter env --count`; returns the count or throws with the reason.
int count_in_child(const std::vector<std::string>& counter) {
  std::vector<std::string> argv = counter;
  argv.insert(argv.end(), {"env", "--count"});
  std::string out;
  const child_result r = run_child_capture(argv, out);
  int n = -1;
  std::istringstream in(out);
  in >> n;
  if (r.exit_code != 0 || n < 0)
    throw runtime_failure(
        fmt::format("no GPU to run on (`{} env --count` ended with exit code {}; "
                    "see its message above)",
                    fmt::join(counter, " "), r.exit_code));
  return n;
}

int device_count(const std::vector<std::string>& counter) {
  const bool ask_child = env_set("CUDA_VISIBLE_DEVICES") || env_set("CUDABENCH_ROUND_COMMAND");
  if (ask_child) return count_in_child(counter);
  std::string why;
  if (const auto n = nvml_device_count(&why)) return static_cast<int>(*n);
  try {
    return count_in_child(counter);
  } catch (const runtime_failure& e) {
    throw runtime_failure(fmt::format("{}; NVML: {}", e.what(), why));  // both ways of counting said no
  }
}

}  // namespace

std::vector<int> parse_device_list(const std::string& spec) {
  if (spec == "all") return {};
  std::vector<int> out;
  std::istringstream in(spec);
  for (std::string part; std::getline(in, part, ',');) {
    const auto dash = part.find('-');
    const int lo = parse_index(part.substr(0, dash), spec);
    const int hi = dash == std::string::npos ? lo : parse_index(part.substr(dash + 1), spec);
    if (hi < lo) throw input_error(fmt::format("--devices {}: the range {} runs backwards", spec, part));
    for (int d = lo; d <= hi; ++d) {
      if (std::find(out.begin(), out.end(), d) != out.end())
        throw input_error(
            fmt::format("--devices {}: device {} is listed twice (two runs on one GPU disturb each other)", spec, d));
      out.push_back(d);
    }
  }
  if (out.empty() || spec.back() == ',')
    throw input_error(fmt::format("--devices \"{}\": expected all, or indices such as 0,2,5 or 0-3", spec));
  return out;
}

std::vector<int> resolve_devices(const std::string& spec, const std::vector<std::string>& counter) {
  std::vector<int> list = parse_device_list(spec);
  if (!list.empty()) return list;
  int n = 0;
  try {
    n = device_count(counter);
  } catch (const runtime_failure& e) {
    throw runtime_failure(std::string("--devices all: ") + e.what());
  }
  if (n <= 0) throw runtime_failure("--devices all: no CUDA device found on this machine");
  for (int d = 0; d < n; ++d) list.push_back(d);
  return list;
}

std::string describe_devices(const std::string& spec, const std::vector<std::string>& counter) {
  std::vector<int> list = parse_device_list(spec);
  if (list.empty()) {
    try {
      list = resolve_devices(spec, counter);
    } catch (const runtime_failure& e) {
      return fmt::format("on every GPU at once, one process each ({})", e.what());
    }
  }
  return fmt::format("on GPU{} {} at once, one process each", list.size() == 1 ? "" : "s", fmt::join(list, ", "));
}

std::vector<std::string> measuring_command() {
  const char* cmd = std::getenv("CUDABENCH_ROUND_COMMAND");
  return cmd && *cmd ? split_command(cmd) : std::vector<std::string>{self_executable()};
}

std::string default_host_name() {
  char host[256] = {};
  if (gethostname(host, sizeof(host) - 1) != 0 || !*host) return "localhost";
  return host;
}

}  // namespace cudabench::cli
