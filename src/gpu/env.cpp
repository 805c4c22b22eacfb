// See env.hpp. Library versions come from runtime queries of the libraries actually loaded (and
// their paths via dladdr), not from headers, so an LD_LIBRARY_PATH A/B shows up in the result.
#include "cudabench/env.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include <fmt/format.h>
#ifdef CUDABENCH_HAVE_CUDNN
#include <cudnn.h>
#endif

#include "cudabench/build_commit.hpp"
#include "cudabench/build_config.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/nvml.hpp"

namespace cudabench {

std::string version_string(int v) { return fmt::format("{}.{}.{}", v / 10000, (v / 100) % 100, v % 100); }
std::string cuda_version_string(int v) { return fmt::format("{}.{}", v / 1000, (v % 1000) / 10); }

namespace {
std::string loaded_from(const void* symbol) {
  Dl_info info{};
  if (symbol && dladdr(symbol, &info) && info.dli_fname) return info.dli_fname;
  return "";
}

std::string uuid_string(const cudaUUID_t& u) {
  const auto* b = reinterpret_cast<const unsigned char*>(u.bytes);
  std::string s = "GPU-";
  for (int i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) s += '-';
    s += fmt::format("{:02x}", b[i]);
  }
  return s;
}

template <class T>
nlohmann::ordered_json opt(const std::optional<T>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}
}  // namespace

nlohmann::ordered_json build_info() {
  nlohmann::ordered_json b;
  b["cuda_toolkit"] = CUDABENCH_CUDA_TOOLKIT;
  // nvcc's version and the CUDA libraries linked at build time (CMake refuses to mix majors).
  b["cuda_compiler"] = CUDABENCH_CUDA_COMPILER_VERSION;
  b["cuda_libraries"] = CUDABENCH_CUDA_LIBRARIES;
  b["cuda_architectures"] = CUDABENCH_CUDA_ARCHITECTURES;
  b["compiler"] = CUDABENCH_COMPILER;
  b["build_type"] = CUDABENCH_BUILD_TYPE;
  b["git_commit"] = build_commit();
  b["cublas_headers"] = fmt::format("{}.{}.{}", CUBLAS_VER_MAJOR, CUBLAS_VER_MINOR, CUBLAS_VER_PATCH);
#ifdef CUDABENCH_HAVE_CUDNN
  b["cudnn_headers"] = fmt::format("{}.{}.{}", CUDNN_MAJOR, CUDNN_MINOR, CUDNN_PATCHLEVEL);
#else
  b["cudnn_headers"] = nullptr;
  b["cudnn_missing"] = CUDABENCH_CUDNN_STATUS;
#endif
  return b;
}

std::optional<std::string> device_problem(int device) {
  constexpr const char* works_without = "compare, validate and list work without one";
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  int drv = 0, rt = 0;
  cudaDriverGetVersion(&drv);  // 0 when no driver (libcuda.so.1) could be loaded at all
  cudaRuntimeGetVersion(&rt);
  if (drv == 0 && (err == cudaErrorInsufficientDriver || err == cudaErrorNoDevice || err == cudaSuccess))
    return fmt::format(
        "no NVIDIA driver was found (libcuda.so.1 is not installed or cannot be loaded), so there is no "
        "GPU to run on; {}",
        works_without);
  if (err == cudaErrorInsufficientDriver)
    return fmt::format(
        "the NVIDIA driver supports CUDA {}, older than this build's runtime {}; update the driver "
        "({})",
        cuda_version_string(drv), cuda_version_string(rt), works_without);
  if (err == cudaErrorNoDevice || (err == cudaSuccess && count == 0))
    return fmt::format("no NVIDIA GPU was found (driver for CUDA {} present); {}", cuda_version_string(drv),
                       works_without);
  if (err != cudaSuccess)
    return fmt::format("cannot use the CUDA driver: {} ({}); {}", cudaGetErrorName(err), cudaGetErrorString(err),
                       works_without);
  if (device < 0 || device >= count)
    return fmt::format("--device {} does not exist (this machine has {} CUDA device{})", device, count,
                       count == 1 ? "" : "s");
  return std::nullopt;
}

// The cuBLAS(Lt) and cuDNN this process actually loaded: versions from the libraries, paths from
// where their symbols live (not header versions; LD_LIBRARY_PATH decides).
static void add_loaded_libraries(nlohmann::ordered_json& e) {
  e["cublas"] = version_string(static_cast<int>(cublasLtGetVersion()));
  e["cublas_library"] = loaded_from(reinterpret_cast<const void*>(&cublasLtGetVersion));
#ifdef CUDABENCH_HAVE_CUDNN
  e["cudnn"] = version_string(static_cast<int>(cudnnGetVersion()));
  e["cudnn_library"] = loaded_from(reinterpret_cast<const void*>(&cudnnGetVersion));
#else
  e["cudnn"] = nullptr;
#endif
}

nlohmann::ordered_json host_environment() {
  int rt = 0;
  cudaRuntimeGetVersion(&rt);
  nlohmann::ordered_json e;
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  e["hostname"] = host;
  e["cuda_runtime"] = cuda_version_string(rt);
  add_loaded_libraries(e);
  return e;
}

void require_device(int device) {
  if (const auto problem = device_problem(device)) throw runtime_failure(*problem);
}

nlohmann::ordered_json probe_environment(int device, const std::string& label) {
  require_device(device);
  cudaDeviceProp p{};
  cudaGetDeviceProperties(&p, device);
  int drv = 0, rt = 0;
  cudaDriverGetVersion(&drv);
  cudaRuntimeGetVersion(&rt);
  char bus[32] = {};
  cudaDeviceGetPCIBusId(bus, sizeof(bus), device);
  nvml_device nvml(bus);

  nlohmann::ordered_json e;
  e["label"] = label.empty() ? "CUDA " + cuda_version_string(rt) : label;
  char host[256] = {};
  gethostname(host, sizeof(host) - 1);
  e["hostname"] = host;
  e["driver_version"] = opt(nvml.driver_version());
  e["cuda_driver_api"] = cuda_version_string(drv);
  e["cuda_runtime"] = cuda_version_string(rt);
  add_loaded_libraries(e);
  auto& d = e["device"];
  d["index"] = device;
  d["name"] = p.name;
  d["uuid"] = uuid_string(p.uuid);
  d["pci_bus_id"] = bus;
  d["compute_capability"] = fmt::format("{}.{}", p.major, p.minor);
  d["sm_count"] = p.multiProcessorCount;
  d["memory_bytes"] = static_cast<std::uint64_t>(p.totalGlobalMem);
  d["l2_bytes"] = p.l2CacheSize;
  d["max_sm_clock_mhz"] = opt(nvml.max_sm_clock_mhz());
  d["max_memory_clock_mhz"] = opt(nvml.max_memory_clock_mhz());
  d["power_limit_w"] = opt(nvml.power_limit_w());
  d["ecc"] =
      nvml.ecc_enabled() ? nlohmann::ordered_json(*nvml.ecc_enabled()) : nlohmann::ordered_json(p.ECCEnabled != 0);
  d["mig"] = opt(nvml.mig_enabled());
  if (!nvml.available())
    e["nvml"] = "unavailable: " + nvml.unavailable_reason() + " (clocks, cycles and energy not recorded)";
  return e;
}

}  // namespace cudabench
