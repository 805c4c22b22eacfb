// Concurrent runs on one GPU are a mistake (each slows the other, and neither result says so):
// before a run takes its GPU, ask NVML which other processes have a compute context there, warn,
// and record them in the result (environment.other_processes).
#pragma once
#include <optional>

#include <nlohmann/json.hpp>

namespace cudabench {

// Call before this process creates its own context on `device` (cudaSetDevice does), so the list
// holds only others, even where NVML reports host PIDs from inside a container. Each entry:
// {"pid", "name" (from /proc, "" when not visible), "used_memory_bytes" (null when unknown)}.
// nullopt when NVML cannot tell (no NVML, old driver, MIG).
std::optional<nlohmann::ordered_json> other_gpu_processes(int device);

// "cudabench: warning: GPU 0 (0000:19:00.0) is in use by 1 other process: ..." on stderr, when
// `processes` is not empty. Printed even with --quiet: it is about the numbers, not progress.
void warn_other_processes(int device, const nlohmann::ordered_json& processes);

}  // namespace cudabench
