// cudabench: a small main() that builds the CLI and dispatches to one subcommand.
// `run` is the default subcommand: `cudabench --suite full` means `cudabench run --suite full`.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "cli/commands.hpp"
#include "cudabench/build_config.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/text_safety.hpp"

namespace cudabench::cli {
namespace {
std::vector<std::string> g_argv;
}
const std::vector<std::string>& process_argv() { return g_argv; }

std::vector<std::string> config_search_dirs() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("CUDABENCH_CONFIG_DIR")) dirs.emplace_back(env);
  dirs.emplace_back(CUDABENCH_SOURCE_CONFIG_DIR);
  dirs.emplace_back(CUDABENCH_INSTALL_CONFIG_DIR);
  dirs.emplace_back("configs");
  return dirs;
}
}  // namespace cudabench::cli

int main(int argc, char** argv) {
  using namespace cudabench;
  for (int i = 0; i < argc; ++i) cli::g_argv.emplace_back(argv[i]);

  CLI::App app{"cudabench: GPU workload benchmarks you can trust, and comparisons between builds"};
  app.set_version_flag("--version", std::string("cudabench ") + CUDABENCH_VERSION + " (" + CUDABENCH_GIT_COMMIT + ")");
  app.require_subcommand(0, 1);
  app.footer(
      "Examples:\n"
      "  cudabench --suite quick                      run the smoke suite (run is the default)\n"
      "  cudabench --suite full -o results/cu130.json  run everything, keep the result file\n"
      "  cudabench --suite full --rounds 5             five rounds, each in a fresh process\n"
      "  cudabench compare base.json new.json          compare two result files\n"
      "  cudabench ab old/cudabench new/cudabench      interleaved A/B of two builds on this GPU\n"
      "  cudabench list --suite full                   show what a suite expands to\n"
      "  cudabench validate my-suite.json              check a suite; no GPU needed\n"
      "  cudabench env                                 driver, toolkit, libraries, GPU, clocks\n"
      "\nExit codes: 0 ok, 1 regression (compare --fail-on-regression), 2 bad input, 3 runtime failure");

  int exit_code = 0;
  cli::add_run(app, exit_code);
  cli::add_list(app, exit_code);
  cli::add_validate(app, exit_code);
  cli::add_env(app, exit_code);
  cli::add_compare(app, exit_code);
  cli::add_ab(app, exit_code);

  // Default subcommand: insert "run" unless the first argument names a subcommand or asks for
  // top-level help/version.
  std::vector<std::string> args(cli::g_argv.begin() + 1, cli::g_argv.end());
  if (args.empty()) {
    fmt::print("{}", app.help());
    return 0;
  }
  const bool top_level_flag = !args.empty() && (args[0] == "-h" || args[0] == "--help" || args[0] == "--version");
  bool names_subcommand = false;
  if (!args.empty())
    for (const auto* sub : app.get_subcommands([](CLI::App*) { return true; }))
      if (sub->get_name() == args[0]) names_subcommand = true;
  if (!top_level_flag && !names_subcommand) args.insert(args.begin(), "run");
  std::reverse(args.begin(), args.end());  // CLI11 parses a reversed vector

  try {
    app.parse(args);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return 2;
  } catch (const input_error& e) {
    fmt::print(stderr, "cudabench: error: {}\n", terminal_text(e.what()));
    return 2;
  } catch (const runtime_failure& e) {
    fmt::print(stderr, "cudabench: error: {}\n", terminal_text(e.what()));
    return 3;
  } catch (const std::exception& e) {
    fmt::print(stderr, "cudabench: error: {}\n", terminal_text(e.what()));
    return 3;
  }
  return exit_code;
}
