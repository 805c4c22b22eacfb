// Placeholder until implemented.
#include "cli/commands.hpp"

namespace cudabench::cli {
void add_validate(CLI::App& app, int& exit_code) {
  (void)exit_code;
  app.add_subcommand("validate", "(not implemented yet)");
}
}  // namespace cudabench::cli
