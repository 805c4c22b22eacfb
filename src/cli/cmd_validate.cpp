// `cudabench validate FILE...`: check suites strictly without running anything (no GPU needed).
// Every file is checked; each invalid one gets its first error on stderr, and the exit code is 2
// if any failed.
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>

#include "cli/commands.hpp"
#include "cli/suite_loading.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/text_safety.hpp"

namespace cudabench::cli {

void add_validate(CLI::App& app, int& exit_code) {
  auto files = std::make_shared<std::vector<std::string>>();
  auto max_workloads = std::make_shared<std::uint64_t>(default_max_workloads);
  auto* sub = app.add_subcommand("validate", "Check suite files strictly (no GPU needed); exit 2 if any is invalid");
  sub->add_option("files", *files, "Suite files (or names of shipped suites)")->required();
  add_max_workloads_option(*sub, *max_workloads);
  // Its own footer: CLI11 hands a subcommand the top-level footer (every subcommand's examples) otherwise.
  sub->footer(
      "Examples:\n"
      "  cudabench validate my-suite.json        every problem named with its JSON path\n"
      "  cudabench validate configs/*.json       several files: each checked, the invalid ones counted\n\n"
      "Exit codes: 0 every file valid, 2 a file is invalid or unreadable.");
  sub->callback([files, max_workloads, &exit_code] {
    std::size_t failed = 0;
    for (const auto& f : *files) {
      try {
        const suite s = load_cli_suite(f, *max_workloads);
        fmt::print("{}: ok ({} workload{})\n", terminal_text(f), s.workloads.size(),
                   s.workloads.size() == 1 ? "" : "s");
      } catch (const input_error& e) {
        std::fflush(stdout);
        fmt::print(stderr, "cudabench: error: {}\n", terminal_text(e.what()));
        ++failed;
      }
    }
    std::fflush(stdout);
    if (failed > 0 && files->size() > 1)
      fmt::print(stderr, "cudabench: {} of {} suite files are invalid\n", failed, files->size());
    exit_code = failed ? 2 : 0;
  });
}

}  // namespace cudabench::cli
