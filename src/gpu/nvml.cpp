// See nvml.hpp. Function signatures follow NVML's public API (nvml.h); the handful used are
// declared here so the build does not need the header.
#include "cudabench/nvml.hpp"

#include <dlfcn.h>

#include <algorithm>

namespace cudabench {
namespace {
using nvml_return = int;  // NVML_SUCCESS == 0
using nvml_dev = void*;
constexpr int kClockSm = 1, kClockMem = 2;

template <class F>
F sym(void* lib, const char* name) {
  return lib ? reinterpret_cast<F>(dlsym(lib, name)) : nullptr;
}
}  // namespace

std::vector<std::string> throttle_reason_names(std::uint64_t mask) {
  static const std::pair<std::uint64_t, const char*> kReasons[] = {
      {0x2, "applications_clocks_setting"}, {0x4, "sw_power_cap"},        {0x8, "hw_slowdown"},
      {0x10, "sync_boost"},                 {0x20, "sw_thermal_slowdown"}, {0x40, "hw_thermal_slowdown"},
      {0x80, "hw_power_brake_slowdown"},    {0x100, "display_clock_setting"}};
  std::vector<std::string> out;
  for (const auto& [bit, name] : kReasons)
    if (mask & bit) out.emplace_back(name);
  return out;
}

bool is_slowdown_reason(const std::string& n) {
  return n == "sw_power_cap" || n == "hw_slowdown" || n == "sw_thermal_slowdown" || n == "hw_thermal_slowdown" ||
         n == "hw_power_brake_slowdown";
}

nvml_device::nvml_device(const std::string& pci_bus_id) {
  lib_ = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib_) {
    reason_ = "libnvidia-ml.so.1 not found";
    return;
  }
  auto init = sym<nvml_return (*)()>(lib_, "nvmlInit_v2");
  auto by_bus = sym<nvml_return (*)(const char*, nvml_dev*)>(lib_, "nvmlDeviceGetHandleByPciBusId_v2");
  if (!init || !by_bus || init() != 0) {
    reason_ = "nvmlInit failed";
    return;
  }
  nvml_dev d = nullptr;
  if (by_bus(pci_bus_id.c_str(), &d) != 0) {
    reason_ = "NVML does not know PCI bus id " + pci_bus_id;
    return;
  }
  dev_ = d;
}

nvml_device::~nvml_device() {
  if (lib_) {
    if (dev_)
      if (auto shut = sym<nvml_return (*)()>(lib_, "nvmlShutdown")) shut();
    dlclose(lib_);
  }
}

std::optional<std::string> nvml_device::driver_version() const {
  auto f = sym<nvml_return (*)(char*, unsigned)>(lib_, "nvmlSystemGetDriverVersion");
  char buf[96] = {};
  if (!dev_ || !f || f(buf, sizeof(buf)) != 0) return std::nullopt;
  return std::string(buf);
}

std::optional<unsigned> nvml_device::sm_clock_mhz() const {
  auto f = sym<nvml_return (*)(nvml_dev, int, unsigned*)>(lib_, "nvmlDeviceGetClockInfo");
  unsigned v = 0;
  if (!dev_ || !f || f(dev_, kClockSm, &v) != 0) return std::nullopt;
  return v;
}

std::optional<unsigned> nvml_device::max_sm_clock_mhz() const {
  auto f = sym<nvml_return (*)(nvml_dev, int, unsigned*)>(lib_, "nvmlDeviceGetMaxClockInfo");
  unsigned v = 0;
  if (!dev_ || !f || f(dev_, kClockSm, &v) != 0) return std::nullopt;
  return v;
}

std::optional<unsigned> nvml_device::max_memory_clock_mhz() const {
  auto f = sym<nvml_return (*)(nvml_dev, int, unsigned*)>(lib_, "nvmlDeviceGetMaxClockInfo");
  unsigned v = 0;
  if (!dev_ || !f || f(dev_, kClockMem, &v) != 0) return std::nullopt;
  return v;
}

std::optional<double> nvml_device::power_usage_w() const {
  // Board power averaged by the driver over its last sampling period (about a second on Hopper).
  auto f = sym<nvml_return (*)(nvml_dev, unsigned*)>(lib_, "nvmlDeviceGetPowerUsage");
  unsigned mw = 0;
  if (!dev_ || !f || f(dev_, &mw) != 0) return std::nullopt;
  return mw / 1000.0;
}

std::optional<double> nvml_device::power_limit_w() const {
  auto f = sym<nvml_return (*)(nvml_dev, unsigned*)>(lib_, "nvmlDeviceGetPowerManagementLimit");
  unsigned mw = 0;
  if (!dev_ || !f || f(dev_, &mw) != 0) return std::nullopt;
  return mw / 1000.0;
}

std::optional<bool> nvml_device::ecc_enabled() const {
  auto f = sym<nvml_return (*)(nvml_dev, int*, int*)>(lib_, "nvmlDeviceGetEccMode");
  int cur = 0, pending = 0;
  if (!dev_ || !f || f(dev_, &cur, &pending) != 0) return std::nullopt;
  return cur != 0;
}

std::optional<bool> nvml_device::mig_enabled() const {
  auto f = sym<nvml_return (*)(nvml_dev, unsigned*, unsigned*)>(lib_, "nvmlDeviceGetMigMode");
  unsigned cur = 0, pending = 0;
  if (!dev_ || !f) return std::nullopt;
  if (f(dev_, &cur, &pending) != 0) return false;  // NOT_SUPPORTED on non-MIG GPUs
  return cur != 0;
}

std::optional<std::vector<std::string>> nvml_device::throttle_reasons() const {
  // Renamed "clocks event reasons" in newer drivers; the old name stays exported.
  auto f = sym<nvml_return (*)(nvml_dev, unsigned long long*)>(lib_, "nvmlDeviceGetCurrentClocksEventReasons");
  if (!f) f = sym<nvml_return (*)(nvml_dev, unsigned long long*)>(lib_, "nvmlDeviceGetCurrentClocksThrottleReasons");
  unsigned long long mask = 0;
  if (!dev_ || !f || f(dev_, &mask) != 0) return std::nullopt;
  return throttle_reason_names(mask);
}

}  // namespace cudabench
