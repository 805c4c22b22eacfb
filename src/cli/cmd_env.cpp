// `cudabench env`: the build and the environment a run would record, as text or JSON. Without a
// usable GPU it prints what it knows (build, host, loaded libraries) and says why, exit 3.
#include <cstdio>
#include <optional>
#include <string>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cudabench/device_count.hpp"
#include "cudabench/env.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/text_safety.hpp"

namespace cudabench::cli {
namespace {
void print_object(const nlohmann::ordered_json& j, const std::string& indent) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it->is_object()) {
      fmt::print("{}{}:\n", indent, it.key());
      print_object(*it, indent + "  ");
    } else {
      fmt::print("{}{:<22} {}\n", indent, it.key() + ":",
                 terminal_text(it->is_string() ? it->get<std::string>() : it->dump()));
    }
  }
}
}  // namespace

void add_env(CLI::App& app, int& exit_code) {
  auto device = std::make_shared<int>(0);
  auto json = std::make_shared<bool>(false);
  CLI::App* env = app.add_subcommand("env", "Print driver, toolkit, libraries, GPU and clocks");
  env->footer(
      "Examples:\n"
      "  cudabench env                 what a result file's \"environment\" would record, on this machine\n"
      "  cudabench env --json          the same as JSON\n"
      "  cudabench env --count         how many CUDA devices this process sees\n\n"
      "Exit codes: 0 ok, 3 no usable GPU or driver.");
  env->add_option("--device", *device, "CUDA device index")->capture_default_str();
  env->add_flag("--json", *json, "Print JSON ({\"build\": ..., \"environment\": ...})");
  auto count = std::make_shared<bool>(false);
  env->add_flag("--count", *count,
                "Print the number of CUDA devices this process sees (honours CUDA_VISIBLE_DEVICES) and exit; "
                "exit 3 when there is none");
  env->callback([device, json, count, &exit_code] {
    if (*count) {
      fmt::print("{}\n", cuda_device_count());  // throws runtime_failure (exit 3) without a GPU
      exit_code = 0;
      return;
    }
    nlohmann::ordered_json out;
    out["build"] = build_info();
    // As text the build comes first, so a machine without a GPU still shows what the binary was
    // built with (toolkit, nvcc, linked CUDA libraries, cuDNN or why none).
    if (!*json) print_object(nlohmann::ordered_json{{"build", out["build"]}}, "");
    // Without a usable GPU, still print what the build and the host say (toolkit, architectures,
    // compiler, the cuBLAS/cuDNN it loads), then the problem; exit 3 as for run.
    const std::optional<std::string> problem = device_problem(*device);
    if (problem) {
      out["environment"] = host_environment();
      out["environment"]["gpu"] = "none: " + *problem;
    } else {
      out["environment"] = probe_environment(*device);
    }
    if (*json) {
      fmt::print("{}\n", json_text_safe(out.dump(2)));
    } else {
      print_object(nlohmann::ordered_json{{"environment", out["environment"]}}, "");
    }
    std::fflush(stdout);
    if (problem) throw runtime_failure(*problem);
    exit_code = 0;
  });
}

}  // namespace cudabench::cli
