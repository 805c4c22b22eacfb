// `cudabench env`: the build and the environment a run would record, as text or JSON.
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cudabench/device_count.hpp"
#include "cudabench/env.hpp"

namespace cudabench::cli {
namespace {
void print_object(const nlohmann::ordered_json& j, const std::string& indent) {
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it->is_object()) {
      fmt::print("{}{}:\n", indent, it.key());
      print_object(*it, indent + "  ");
    } else {
      fmt::print("{}{:<22} {}\n", indent, it.key() + ":", it->is_string() ? it->get<std::string>() : it->dump());
    }
  }
}
}  // namespace

void add_env(CLI::App& app, int& exit_code) {
  auto device = std::make_shared<int>(0);
  auto json = std::make_shared<bool>(false);
  CLI::App* env = app.add_subcommand("env", "Print driver, toolkit, libraries, GPU and clocks");
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
    out["environment"] = probe_environment(*device);  // throws runtime_failure (exit 3) without a GPU
    if (*json) {
      fmt::print("{}\n", out.dump(2));
    } else {
      print_object(nlohmann::ordered_json{{"environment", out["environment"]}}, "");
    }
    exit_code = 0;
  });
}

}  // namespace cudabench::cli
