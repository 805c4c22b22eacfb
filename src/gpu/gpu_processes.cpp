// See gpu_processes.hpp.
#include "cudabench/gpu_processes.hpp"

#include <unistd.h>

#include <fstream>
#include <string>

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "cudabench/nvml.hpp"

namespace cudabench {
namespace {

// The command name of a process, or "" when it is not visible from here (another PID namespace).
std::string process_name(unsigned pid) {
  std::ifstream in(fmt::format("/proc/{}/comm", pid));
  std::string name;
  std::getline(in, name);
  return name;
}

std::string bus_id(int device) {
  char bus[32] = {};
  // A device attribute: no context is created.
  if (cudaDeviceGetPCIBusId(bus, sizeof(bus), device) != cudaSuccess) return "";
  return bus;
}

}  // namespace

std::optional<nlohmann::ordered_json> other_gpu_processes(int device) {
  const std::string bus = bus_id(device);
  if (bus.empty()) return std::nullopt;
  nvml_device nvml(bus);
  const auto procs = nvml.compute_processes();
  if (!procs) return std::nullopt;
  nlohmann::ordered_json out = nlohmann::ordered_json::array();
  const auto self = static_cast<unsigned>(::getpid());
  for (const auto& p : *procs) {
    if (p.pid == self) continue;
    out.push_back({{"pid", p.pid},
                   {"name", process_name(p.pid)},
                   {"used_memory_bytes", p.used_memory_bytes ? nlohmann::ordered_json(*p.used_memory_bytes)
                                                             : nlohmann::ordered_json(nullptr)}});
  }
  return out;
}

void warn_other_processes(int device, const nlohmann::ordered_json& processes) {
  if (!processes.is_array() || processes.empty()) return;
  std::string list;
  for (const auto& p : processes) {
    list += fmt::format("{}pid {}", list.empty() ? "" : "; ", p.value("pid", 0u));
    const std::string name = p.value("name", "");
    if (!name.empty()) list += " (" + name + ")";
    if (p.contains("used_memory_bytes") && p["used_memory_bytes"].is_number())
      list += fmt::format(", {:.1f} GiB", p["used_memory_bytes"].get<double>() / (1024.0 * 1024.0 * 1024.0));
  }
  fmt::print(stderr,
             "cudabench: warning: GPU {} ({}) is in use by {} other process{}: {}. Runs sharing a GPU slow each other "
             "down; this result records them (environment.other_processes).\n",
             device, bus_id(device), processes.size(), processes.size() == 1 ? "" : "es", list);
}

}  // namespace cudabench
