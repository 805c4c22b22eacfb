// `--devices all|0,2,5|0-3`: which GPUs `run` and `ab` use at once, one process each.
#pragma once
#include <string>
#include <vector>

namespace cudabench::cli {

// "0,2,5" and ranges "0-3" (mixed: "0-3,6"), in the order given; "all" gives an empty vector.
// input_error for anything else, negative or repeated indices.
std::vector<int> parse_device_list(const std::string& spec);

// The device indices to run on. For "all": NVML's device count when nothing narrows what CUDA
// sees (no CUDA context is created in this process); otherwise — CUDA_VISIBLE_DEVICES set, NVML
// missing, or CUDABENCH_ROUND_COMMAND replacing the measuring executable — the count that
// `counter env --count` prints, in a short child (cudaGetDeviceCount honours
// CUDA_VISIBLE_DEVICES). runtime_failure (exit 3) when there is no GPU.
std::vector<int> resolve_devices(const std::string& spec, const std::vector<std::string>& counter);

// Like resolve_devices, for `--dry-run`: never throws for a missing GPU; says so in the text.
std::string describe_devices(const std::string& spec, const std::vector<std::string>& counter);

// The executable that measures: CUDABENCH_ROUND_COMMAND when set (the CPU tests' fake, or a
// wrapper such as `numactl --cpunodebind=0 cudabench`), else this very binary.
std::vector<std::string> measuring_command();

// The host name for file names and fleet tables (`--host`, default gethostname()).
std::string default_host_name();

}  // namespace cudabench::cli
