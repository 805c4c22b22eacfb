// What the numbers were measured with: the build (compile-time facts baked in by CMake) and the
// environment (driver, runtime, the cuBLAS/cuDNN actually loaded, the GPU and its clocks).
// These become the result file's `build` and `environment` objects.
#pragma once
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace cudabench {

// Toolkit, architectures, compiler, build type, git commit, cuBLAS/cuDNN header versions.
nlohmann::ordered_json build_info();

// Why `device` cannot be used, in words for the user -- no NVIDIA driver at all, no GPU, a driver
// older than the runtime, a bad index -- or nullopt when it can.
std::optional<std::string> device_problem(int device);

// Throws runtime_failure (exit 3) with device_problem's message.
void require_device(int device);

// What is known without a GPU: hostname, the CUDA runtime, and the cuBLAS/cuDNN libraries
// actually loaded (versions and paths). `env` prints it where there is no GPU.
nlohmann::ordered_json host_environment();

// The environment object for `device`; `label` overrides the default "CUDA <runtime major.minor>".
nlohmann::ordered_json probe_environment(int device, const std::string& label = "");

// "13.1.0" from 130100-style version integers (major*10000 + minor*100 + patch) and the
// cuDNN 9 style (major*10000 + minor*100 + patch as well since 9.0).
std::string version_string(int v);
// "13.0" from cudaRuntimeGetVersion/cudaDriverGetVersion style (major*1000 + minor*10).
std::string cuda_version_string(int v);

}  // namespace cudabench
