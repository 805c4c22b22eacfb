// Placeholder until implemented.
#include "cli/commands.hpp"

namespace cudabench::cli {
void add_env(CLI::App& app, int& exit_code) {
  (void)exit_code;
  app.add_subcommand("env", "(not implemented yet)");
}
}  // namespace cudabench::cli
