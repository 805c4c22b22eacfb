// See compare_inputs.hpp.
#include "cli/compare_inputs.hpp"

#include <sstream>

#include <fmt/format.h>

#include "cudabench/errors.hpp"
#include "cudabench/file_kind.hpp"
#include "cudabench/fleet_compare.hpp"
#include "cudabench/report.hpp"

namespace cudabench::cli {
namespace {

std::string report_text(const comparison& c, const std::string& format, bool color) {
  report_options ro;
  ro.color = color;
  std::ostringstream s;
  make_reporter(format, ro)->report(c, s);
  return s.str();
}

}  // namespace

// The kind is sniffed from the file's first 4 KB (file_kind.hpp), so result files keep the
// checked, streaming reader and only fleets are parsed whole; both readers are the checked ones.
compare_input read_compare_input(const std::string& path) {
  if (sniff_json_file_kind(path) != json_file_kind::fleet) return {read_result_file(path), std::nullopt};
  fleet_file f = read_fleet_file(path);
  result_file r = fleet_as_result(f);
  return {std::move(r), std::move(f)};
}

void report_per_gpu(const std::vector<compare_input>& inputs, const std::vector<std::string>& sources,
                    const comparison& fleet_cmp, const compare_options& opt, const std::string& format, bool color,
                    std::ostream& out) {
  std::vector<const fleet_file*> fleets;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].fleet) throw input_error(fmt::format("--per-gpu: {} is not a fleet file", sources[i]));
    fleets.push_back(&*inputs[i].fleet);
  }
  std::vector<std::string> missing;
  const std::vector<matched_gpu> gpus = match_gpus(fleets, missing);
  std::vector<std::pair<std::string, comparison>> per_gpu;
  for (const auto& g : gpus) {
    std::vector<result_file> files;
    std::vector<std::string> names;
    for (std::size_t i = 0; i < g.results.size(); ++i) {
      files.push_back(*g.results[i]);
      files.back().environment["label"] = inputs[i].fleet->label;  // the fleets' columns, not each GPU's label
      names.push_back(fmt::format("{} ({})", sources[i], g.name));
    }
    per_gpu.emplace_back(g.name, compare_results(files, names, opt));
  }
  if (format == "json") {
    nlohmann::ordered_json j;
    j["fleet"] = nlohmann::ordered_json::parse(report_text(fleet_cmp, "json", false));
    j["per_gpu"] = nlohmann::ordered_json::array();
    for (const auto& [name, c] : per_gpu)
      j["per_gpu"].push_back(
          {{"gpu", name}, {"comparison", nlohmann::ordered_json::parse(report_text(c, "json", false))}});
    j["not_in_every_file"] = missing;
    out << j.dump(2) << "\n";
    return;
  }
  out << report_text(fleet_cmp, format, color);
  for (const auto& [name, c] : per_gpu) {
    if (format == "markdown") out << "\n## " << name << "\n\n";
    else if (format == "csv") out << "\n# " << name << "\n";
    else out << "\n=== " << name << "\n";
    out << report_text(c, format, color);
  }
  if (!missing.empty())
    out << fmt::format("\n{}GPUs of the baseline not in every file (no per-GPU comparison): {}\n",
                       format == "csv" ? "# " : "", fmt::join(missing, ", "));
}

}  // namespace cudabench::cli
