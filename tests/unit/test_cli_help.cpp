// One error style for every failure, CLI11's parse errors included (`cudabench: error: ...`, one
// line, exit 2, where to look); the top-level help names the program, shows the default
// subcommand's options and every exit code; each subcommand's help is its own.
#include <string>

#include <gtest/gtest.h>

#include "cli_runner.hpp"

namespace {
std::size_t lines(const std::string& s) {
  std::size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}
}  // namespace

TEST(CliHelp, ParseErrorsAreOneLineInTheCommonStyle) {
  struct bad {
    std::string args, words, see;
  };
  for (const auto& b :
       {bad{"--bogus", "The following argument was not expected: --bogus", "cudabench run --help"},
        bad{"list --bogus", "The following argument was not expected: --bogus", "cudabench list --help"},
        bad{"compare", "files is required", "cudabench compare --help"},
        bad{"compare a b --alpha", "--alpha: 1 required FLOAT missing", "cudabench compare --help"},
        bad{"list --format xml", "--format: xml not in {table,json}", "cudabench list --help"},
        // CLI11 2.3 ends "range 1 to 1000", 2.4 "range [1 - 1000]": only the common words are ours to test.
        bad{"run --reps 0", "--reps: Value 0 not in range", "cudabench run --help"},
        bad{"validate", "files is required", "cudabench validate --help"},
        bad{"env --device x", "--device", "cudabench env --help"}}) {
    const auto r = run_cudabench(b.args);
    EXPECT_EQ(r.exit_code, 2) << b.args << "\n" << r.output;
    EXPECT_EQ(r.output.rfind("cudabench: error: ", 0), 0u) << b.args << "\n" << r.output;
    EXPECT_NE(r.output.find(b.words), std::string::npos) << b.args << "\n" << r.output;
    EXPECT_NE(r.output.find("(see " + b.see + ")"), std::string::npos) << b.args << "\n" << r.output;
    EXPECT_EQ(lines(r.output), 1u) << b.args << "\n" << r.output;
  }
}

TEST(CliHelp, TopLevelHelpNamesTheProgramAndShowsRunsOptionsAndExitCodes) {
  for (const char* args : {"", "--help", "-h"}) {
    const auto r = run_cudabench(args);
    EXPECT_EQ(r.exit_code, 0) << args;
    EXPECT_NE(r.output.find("Usage: cudabench [OPTIONS] [SUBCOMMAND]"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("Options of run, the default subcommand"), std::string::npos) << r.output;
    // CLI11 2.3 prints the default as "--suite TEXT=quick", 2.4 as "--suite TEXT [quick]".
    const auto suite_line = r.output.find("  --suite TEXT");
    ASSERT_NE(suite_line, std::string::npos) << r.output;
    EXPECT_NE(r.output.substr(suite_line, r.output.find('\n', suite_line) - suite_line).find("quick"),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("  --dry-run"), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("130 interrupted by Ctrl-C"), std::string::npos) << r.output;
  }
}

TEST(CliHelp, EverySubcommandsHelpIsItsOwn) {
  struct sub {
    std::string name, first_line;
  };
  for (const auto& s : {sub{"run", "Run a suite and write a result file"}, sub{"list", "Show what a suite expands to"},
                        sub{"validate", "Check suite files strictly"}, sub{"env", "Print driver, toolkit"},
                        sub{"compare", "Compare result files"}, sub{"ab", "Interleaved A/B of builds"}}) {
    const auto r = run_cudabench(s.name + " --help");
    EXPECT_EQ(r.exit_code, 0) << s.name;
    EXPECT_EQ(r.output.rfind(s.first_line, 0), 0u) << s.name << "\n" << r.output;
    EXPECT_NE(r.output.find("Usage: cudabench " + s.name + " [OPTIONS]"), std::string::npos) << r.output;
    EXPECT_EQ(r.output.find("Subcommands:"), std::string::npos) << s.name << "\n" << r.output;
    // Not the top-level footer, which CLI11 hands a subcommand that sets none of its own.
    EXPECT_EQ(r.output.find("run the smoke suite (run is the default)"), std::string::npos) << s.name << "\n"
                                                                                            << r.output;
  }
  EXPECT_EQ(run_cudabench("fleet --help").output.find("run the smoke suite (run is the default)"), std::string::npos);
  // The default subcommand's help through its options alone.
  EXPECT_EQ(run_cudabench("--suite quick --help").output.rfind("Run a suite and write a result file", 0), 0u);
  EXPECT_NE(run_cudabench("run --help").output.find("130 interrupted by Ctrl-C"), std::string::npos);
}
