// The subcommands. Each add_* registers one subcommand on `app`; its callback stores the process
// exit code (README "Exit codes") in `exit_code`. Errors are thrown as input_error (exit 2) or
// runtime_failure (exit 3) and reported once, in main().
#pragma once
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace cudabench::cli {

void add_run(CLI::App& app, int& exit_code);       // cmd_run.cpp (the default subcommand)
void add_list(CLI::App& app, int& exit_code);      // cmd_list.cpp
void add_validate(CLI::App& app, int& exit_code);  // cmd_validate.cpp
void add_env(CLI::App& app, int& exit_code);       // cmd_env.cpp
void add_compare(CLI::App& app, int& exit_code);   // cmd_compare.cpp
void add_ab(CLI::App& app, int& exit_code);        // cmd_ab.cpp
void add_report(CLI::App& app, int& exit_code);    // cmd_report.cpp
void add_history(CLI::App& app, int& exit_code);   // cmd_history.cpp
void add_fleet(CLI::App& app, int& exit_code);     // cmd_fleet.cpp
void add_noise(CLI::App& app, int& exit_code);     // cmd_noise.cpp

// Where `--suite NAME` looks for NAME.json: $CUDABENCH_CONFIG_DIR, the source tree's configs/,
// the installed share/cudabench/configs, ./configs.
std::vector<std::string> config_search_dirs();

// The argv the process was started with (recorded in result files).
const std::vector<std::string>& process_argv();

}  // namespace cudabench::cli
