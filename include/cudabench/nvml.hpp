// NVML, loaded at run time from the driver's libnvidia-ml.so.1 (no header or stub needed at build
// time, so every build records clocks on a GPU box and degrades to "clocks unavailable" without
// it). Only the handful of calls cudabench needs. cudabench only reads; it never sets clocks.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cudabench {

class nvml_device {
 public:
  // Opens NVML and finds the device with this PCI bus id ("0000:00:06.0", from
  // cudaDeviceGetPCIBusId; NVML and CUDA enumerate devices differently). Never throws:
  // available() is false when the library or device is missing.
  explicit nvml_device(const std::string& pci_bus_id);
  ~nvml_device();
  nvml_device(const nvml_device&) = delete;
  nvml_device& operator=(const nvml_device&) = delete;

  bool available() const { return dev_ != nullptr; }
  const std::string& unavailable_reason() const { return reason_; }

  std::optional<std::string> driver_version() const;
  std::optional<unsigned> sm_clock_mhz() const;
  std::optional<unsigned> max_sm_clock_mhz() const;
  std::optional<unsigned> max_memory_clock_mhz() const;
  std::optional<double> power_limit_w() const;
  std::optional<double> power_usage_w() const;  // current board power draw
  // Energy the GPU used since the driver was loaded, in mJ (nvmlDeviceGetTotalEnergyConsumption,
  // Volta and newer). The driver updates it periodically, not continuously: energy_metrics.hpp says
  // how short a window it can measure.
  std::optional<std::uint64_t> total_energy_mj() const;
  std::optional<bool> ecc_enabled() const;
  std::optional<bool> mig_enabled() const;
  // Active clock-event (throttle) reasons as names; GPU idle is left out.
  std::optional<std::vector<std::string>> throttle_reasons() const;

  // The processes with a compute context on this GPU (nvmlDeviceGetComputeRunningProcesses);
  // nullopt when NVML cannot tell (old driver, no permission, MIG).
  struct process {
    unsigned pid = 0;
    std::optional<std::uint64_t> used_memory_bytes;  // none when NVML does not know (e.g. in a VM)
  };
  std::optional<std::vector<process>> compute_processes() const;

 private:
  void* lib_ = nullptr;
  void* dev_ = nullptr;
  std::string reason_;
};

// How many GPUs the driver has (nvmlDeviceGetCount), without touching CUDA: `--devices all` asks
// this in the parent so that no CUDA context is created there. NVML ignores CUDA_VISIBLE_DEVICES.
// nullopt, with `why` set, when NVML cannot be loaded or initialised (no driver).
std::optional<unsigned> nvml_device_count(std::string* why = nullptr);

// Names of a throttle-reason bit mask (NVML's nvmlClocksEventReason* bits), idle excluded.
std::vector<std::string> throttle_reason_names(std::uint64_t mask);
// Whether a reason slows the clock for thermal or power reasons (vs. an app-clock setting).
bool is_slowdown_reason(const std::string& name);

}  // namespace cudabench
