// cudabench: a small main() that builds the CLI and dispatches to one subcommand.
// `run` is the default subcommand: `cudabench --suite full` means `cudabench run --suite full`.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <fmt/core.h>

#include "cli/commands.hpp"
#include "cli/did_you_mean.hpp"
#include "cudabench/build_commit.hpp"
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
// The top-level help also lists the options of `run`, the default subcommand, since
// `cudabench --suite quick` is how most people start; subcommands' help is CLI11's own.
class top_level_formatter : public CLI::Formatter {
 public:
  std::string make_help(const CLI::App* app, std::string name, CLI::AppFormatMode mode) const override {
    if (app->get_parent() != nullptr || mode != CLI::AppFormatMode::Normal)
      return CLI::Formatter::make_help(app, name, mode);
    std::string out =
        make_description(app) + make_usage(app, name) + make_groups(app, mode) + make_subcommands(app, mode);
    const CLI::App* run = app->get_subcommand("run");
    // run's option lines, without its group title and its -h line.
    std::istringstream lines(make_groups(run, mode));
    std::string line, run_options;
    while (std::getline(lines, line))
      if (!line.empty() && line != "Options:" && line.find("-h,--help") == std::string::npos)
        run_options += line + "\n";
    out += "\nOptions of run, the default subcommand (cudabench --suite quick = cudabench run --suite quick):\n" +
           run_options + "\n";
    return out + make_footer(app);
  }
};

// CLI11's parse errors in cudabench's one error style: one line, and where to look.
int parse_error_exit(const CLI::App& app, const CLI::ParseError& e) {
  std::string where = "cudabench --help";
  for (const CLI::App* sub : app.get_subcommands()) where = "cudabench " + sub->get_name() + " --help";
  fmt::print(stderr, "cudabench: error: {} (see {})\n", terminal_text(e.what()), where);
  return 2;
}

}  // namespace cudabench::cli

int main(int argc, char** argv) {
  using namespace cudabench;
  for (int i = 0; i < argc; ++i) cli::g_argv.emplace_back(argv[i]);

  CLI::App app{"cudabench: GPU workload benchmarks you can trust, and comparisons between builds", "cudabench"};
  app.formatter(std::make_shared<cli::top_level_formatter>());
  app.set_version_flag("--version",
                       std::string("cudabench ") + CUDABENCH_VERSION + " (" + cudabench::build_commit() + ")");
  app.require_subcommand(0, 1);
  app.footer(
      "Examples:\n"
      "  cudabench --suite quick                      run the smoke suite (run is the default)\n"
      "  cudabench --suite full -o results/cu130.json  run everything, keep the result file\n"
      "  cudabench --suite full --rounds 5             five rounds, each in a fresh process\n"
      "  cudabench compare base.json new.json          compare two result files\n"
      "  cudabench ab old/cudabench new/cudabench      interleaved A/B of two builds on this GPU\n"
      "  cudabench --suite full --devices all          every GPU of this host at once, outlier GPUs flagged\n"
      "  cudabench list --suite full                   show what a suite expands to\n"
      "  cudabench validate my-suite.json              check a suite; no GPU needed\n"
      "  cudabench env                                 driver, toolkit, libraries, GPU, clocks\n"
      "\nExit codes: 0 ok, 1 regression (compare --fail-on-regression), 2 bad input, 3 runtime failure (no GPU,\n"
      "driver too old, --strict failures), 130 interrupted by Ctrl-C (the result file keeps what finished)");

  int exit_code = 0;
  cli::add_run(app, exit_code);
  cli::add_list(app, exit_code);
  cli::add_validate(app, exit_code);
  cli::add_env(app, exit_code);
  cli::add_compare(app, exit_code);
  cli::add_ab(app, exit_code);
  cli::add_report(app, exit_code);
  cli::add_history(app, exit_code);
  cli::add_fleet(app, exit_code);
  cli::add_noise(app, exit_code);

  // Default subcommand: insert "run" unless the first argument names a subcommand or asks for
  // top-level help/version.
  std::vector<std::string> args(cli::g_argv.begin() + 1, cli::g_argv.end());
  if (args.empty()) {
    fmt::print("{}", app.help());
    return 0;
  }
  const bool top_level_flag = !args.empty() && (args[0] == "-h" || args[0] == "--help" || args[0] == "--version");
  bool names_subcommand = false;
  std::vector<std::string> names;
  for (const auto* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    names.push_back(sub->get_name());
    if (sub->get_name() == args[0]) names_subcommand = true;
  }
  // `run` takes no positional argument, so a first word that is no subcommand is a mistyped one;
  // inserting "run" before it would only produce "arguments were not expected".
  if (!top_level_flag && !names_subcommand && !args[0].empty() && args[0][0] != '-') {
    const std::string guess = cli::closest_name(args[0], names);
    fmt::print(stderr, "cudabench: error: unknown command '{}'{} (see cudabench --help)\n", terminal_text(args[0]),
               guess.empty() ? "" : " (did you mean " + guess + "?)");
    return 2;
  }
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
    return cli::parse_error_exit(app, e);
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
