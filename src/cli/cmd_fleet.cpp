// `cudabench fleet collect DIR... -o fleet.json`: merge the per-host fleet results (and per-GPU
// result files) of a multi-node run, e.g. the Slurm job array in scripts/slurm/, into one fleet
// result with host names and GPU indices, and print the same outlier table across nodes.
#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/fleet_collect.hpp"
#include "cudabench/atomic_write.hpp"
#include "cudabench/build_commit.hpp"
#include "cudabench/build_config.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/fleet.hpp"
#include "cudabench/fleet_report.hpp"

namespace cudabench::cli {
namespace {

struct collect_args {
  std::vector<std::string> inputs;
  std::string output;
  std::string format = "table";
  std::string label;
  outlier_rule rule;
};

int run_collect(const collect_args& a) {
  const summary_format out_format = parse_summary_format(a.format);
  if (!(a.rule.k > 0)) throw input_error(fmt::format("--outlier-k {} must be positive", a.rule.k));
  if (!(a.rule.min_deviation_pct >= 0))
    throw input_error(fmt::format("--outlier-min-pct {} must be a non-negative percentage", a.rule.min_deviation_pct));
  if (!a.output.empty()) check_output_path(a.output, a.inputs);  // a directory as -o, a missing one
  collected c = collect_gpus(a.inputs, a.output);
  for (const auto& s : c.skipped) fmt::print(stderr, "fleet collect: skipped {}\n", s);
  for (const auto& w : c.warnings) fmt::print(stderr, "fleet collect: warning: {}\n", w);
  if (c.gpus.empty())
    throw input_error(fmt::format("no fleet or per-GPU result file in {}", fmt::join(a.inputs, ", ")));
  fleet_file f = make_fleet(std::move(c.gpus), a.rule, a.label);
  f.tool = {
      {"name", "cudabench"}, {"version", CUDABENCH_VERSION}, {"git_commit", build_commit()}, {"argv", process_argv()}};
  if (!a.output.empty()) write_fleet_file(f, a.output, c.files);
  fmt::print("{}", format_fleet_summary(f, out_format));
  if (!a.output.empty()) fmt::print(stderr, "fleet result: {}\n", a.output);
  return 0;
}

}  // namespace

void add_fleet(CLI::App& app, int& exit_code) {
  auto* fleet = app.add_subcommand("fleet", "Fleet results: many GPUs, many hosts (see docs/fleet.md)");
  fleet->footer(
      "Examples:\n  cudabench fleet collect /nfs/cudabench/fleet-123 -o fleet.json   (cudabench fleet collect --help)");
  fleet->require_subcommand(1);
  auto a = std::make_shared<collect_args>();
  auto* collect = fleet->add_subcommand(
      "collect", "Merge per-host fleet results and per-GPU result files into one fleet result, with outlier GPUs");
  collect->add_option("inputs", a->inputs, "Directories (their *.json) or files")->required();
  collect->add_option("-o,--output", a->output, "Write the merged fleet result here");
  collect->add_option("--format", a->format, "stdout format: table, markdown, csv, json")->capture_default_str();
  collect->add_option("--label", a->label, "Label for comparisons (default: the first GPU's)");
  collect
      ->add_option("--outlier-k", a->rule.k,
                   "Robust z (MADs from the fleet median) beyond which a GPU may be an outlier")
      ->capture_default_str();
  collect
      ->add_option("--outlier-min-pct", a->rule.min_deviation_pct,
                   "... and at least this many percent from the fleet median")
      ->capture_default_str();
  collect->footer(
      "Examples:\n"
      "  cudabench fleet collect /nfs/cudabench/fleet-123 -o fleet.json\n"
      "  cudabench fleet collect node01-fleet.json node02-fleet.json --format markdown\n"
      "  cudabench compare fleet-old.json fleet-new.json        (fleets compare like result files)");
  collect->callback([a, &exit_code] { exit_code = run_collect(*a); });
}

}  // namespace cudabench::cli
