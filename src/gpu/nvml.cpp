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
  static const std::pair<std::uint64_t, const char*> kReasons[] = {{0x2, "applications_clocks_setting"},
                                                                   {0x4, "sw_power_cap"},
                                                                   {0x8, "hw_slowdown"},
                                                                   {0x10, "sync_boost"},
                                                                   {0x20, "sw_thermal_slowdown"},
                                                                   {0x40, "hw_thermal_slowdown"},
                                                                   {0x80, "hw_power_brake_slowdown"},
                                                                   {0x100, "display_clock_setting"}};
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

std::optional<std::uint64_t> nvml_device::total_energy_mj() const {
  auto f = sym<nvml_return (*)(nvml_dev, unsigned long long*)>(lib_, "nvmlDeviceGetTotalEnergyConsumption");
  unsigned long long mj = 0;
  if (!dev_ || !f || f(dev_, &mj) != 0) return std::nullopt;
  return mj;
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

std::optional<std::vector<nvml_device::process>> nvml_device::compute_processes() const {
  // nvmlProcessInfo_t of the _v2/_v3 entry points (pid, used memory, GPU and compute instance),
  // and the two-field struct of the original entry point, for drivers older than R470.
  struct info_v2 {
    unsigned pid;
    unsigned long long used;
    unsigned gpu_instance, compute_instance;
  };
  struct info_v1 {
    unsigned pid;
    unsigned long long used;
  };
  constexpr nvml_return kInsufficientSize = 7;
  constexpr unsigned long long kNotAvailable = ~0ull;  // NVML_VALUE_NOT_AVAILABLE
  if (!dev_) return std::nullopt;
  auto collect = [&](auto fn, auto tag) -> std::optional<std::vector<process>> {
    using info = decltype(tag);
    std::vector<info> buf(64);
    for (int attempt = 0; attempt < 4; ++attempt) {
      unsigned n = static_cast<unsigned>(buf.size());
      const nvml_return r = fn(dev_, &n, buf.data());
      if (r == kInsufficientSize) {  // more processes appeared than room: grow and ask again
        buf.resize(n + 16);
        continue;
      }
      if (r != 0) return std::nullopt;
      std::vector<process> out;
      for (unsigned i = 0; i < n && i < buf.size(); ++i)
        out.push_back(
            {buf[i].pid, buf[i].used == kNotAvailable ? std::nullopt : std::optional<std::uint64_t>(buf[i].used)});
      return out;
    }
    return std::nullopt;
  };
  using fn_v2 = nvml_return (*)(nvml_dev, unsigned*, info_v2*);
  using fn_v1 = nvml_return (*)(nvml_dev, unsigned*, info_v1*);
  for (const char* name : {"nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetComputeRunningProcesses_v2"})
    if (auto f = sym<fn_v2>(lib_, name)) return collect(f, info_v2{});
  if (auto f = sym<fn_v1>(lib_, "nvmlDeviceGetComputeRunningProcesses")) return collect(f, info_v1{});
  return std::nullopt;
}

std::optional<unsigned> nvml_device_count(std::string* why) {
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
  auto fail = [&](const char* reason) -> std::optional<unsigned> {
    if (why) *why = reason;
    if (lib) dlclose(lib);
    return std::nullopt;
  };
  if (!lib) return fail("libnvidia-ml.so.1 not found (no NVIDIA driver)");
  auto init = sym<nvml_return (*)()>(lib, "nvmlInit_v2");
  auto count = sym<nvml_return (*)(unsigned*)>(lib, "nvmlDeviceGetCount_v2");
  auto shut = sym<nvml_return (*)()>(lib, "nvmlShutdown");
  if (!init || !count || init() != 0) return fail("nvmlInit failed (driver not loaded?)");
  unsigned n = 0;
  const nvml_return r = count(&n);
  if (shut) shut();
  if (r != 0) return fail("nvmlDeviceGetCount failed");
  dlclose(lib);
  return n;
}

}  // namespace cudabench
