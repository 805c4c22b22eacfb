// See fleet_collect.hpp.
#include "cli/fleet_collect.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <regex>

#include <fmt/format.h>

#include "cudabench/errors.hpp"
#include "cudabench/file_kind.hpp"
#include "cudabench/input_file.hpp"
#include "cudabench/result.hpp"

namespace cudabench::cli {
namespace {

namespace fs = std::filesystem;
using oj = nlohmann::ordered_json;

// The files named, and each named directory's *.json entries (whatever they are: a FIFO or a
// directory called x.json is read, and refused by name, rather than silently passed over).
std::vector<std::string> files_of(const std::vector<std::string>& inputs) {
  std::vector<std::string> out;
  for (const auto& in : inputs) {
    std::error_code ec;
    if (fs::is_directory(in, ec)) {
      std::vector<std::string> here;
      for (const auto& e : fs::directory_iterator(in))
        if (e.path().extension() == ".json") here.push_back(e.path().string());
      std::sort(here.begin(), here.end());
      out.insert(out.end(), here.begin(), here.end());
    } else if (path_exists(in)) {
      out.push_back(in);  // the checked readers say what it is when it is not a regular file
    } else {
      throw input_error(fmt::format("{}: no such file or directory", in));
    }
  }
  return out;
}

// Which GPU a per-GPU result file is: "HOST-gpu-N.json", else what the file says.
fleet_gpu gpu_of_result(const std::string& path, result_file r) {
  fleet_gpu g;
  g.result = std::move(r);
  g.file = fs::path(path).filename().string();
  static const std::regex kName(R"(^(.+)-gpu-([0-9]+)\.json$)");
  std::smatch m;
  if (std::regex_match(g.file, m, kName)) {
    g.host = m[1];
    g.index = std::stoi(m[2]);
    return g;
  }
  const oj& env = g.result->environment;
  const auto host = env.find("hostname");
  const auto dev = env.find("device");
  if (host == env.end() || !host->is_string() || dev == env.end() || !dev->is_object() || !dev->contains("index") ||
      !(*dev)["index"].is_number_integer() || (*dev)["index"].get<long long>() < 0)
    throw input_error(
        fmt::format("{}: cannot tell which GPU this result is from (neither a HOST-gpu-N.json name nor "
                    "environment.hostname and environment.device.index)",
                    path));
  g.host = host->get<std::string>();
  g.index = (*dev)["index"].get<int>();
  return g;
}

}  // namespace

collected collect_gpus(const std::vector<std::string>& inputs, const std::string& output) {
  collected out;
  std::map<std::pair<std::string, int>, std::string> from_fleet;  // GPU -> the fleet file that had it
  std::map<std::string, std::string> by_uuid;                     // GPU UUID -> the first file with it
  std::vector<fleet_gpu> singles;
  const auto out_id = output.empty() ? std::nullopt : identity_of(output);
  // A comparison met in a directory (ab's compare.json) is passed over; one named is a mistake.
  auto explicitly_named = [&inputs](const std::string& path) {
    return std::find(inputs.begin(), inputs.end(), path) != inputs.end();
  };
  for (const auto& path : files_of(inputs)) {
    const json_file_kind kind = sniff_json_file_kind(path);  // refuses FIFOs, devices, empty, huge
    if (out_id && identity_of(path) == out_id) {
      // The previous collection in the same place is regenerated, not read; anything else named
      // as the output is an input and is never written over.
      if (kind == json_file_kind::fleet) continue;
      throw input_error(fmt::format(
          "-o {}: cannot be written: it is the input file {}: refusing to overwrite it (write the output elsewhere)",
          output, path));
    }
    if (kind == json_file_kind::comparison && explicitly_named(path))
      throw input_error(fmt::format("{}: {}", path, not_a_result_file_text(kind)));
    if (kind == json_file_kind::comparison) {
      out.skipped.push_back(fmt::format("{}: a comparison, neither a result nor a fleet file", path));
      continue;
    }
    out.files.push_back(path);
    if (kind == json_file_kind::fleet) {
      fleet_file f = read_fleet_file(path);
      for (auto& g : f.gpus) {
        const auto key = std::make_pair(g.host, g.index);
        if (const auto it = from_fleet.find(key); it != from_fleet.end())
          throw input_error(fmt::format("{} is in two fleet files: {} and {} (collect each host's summary once)",
                                        g.name(), it->second, path));
        from_fleet[key] = path;
        out.gpus.push_back(std::move(g));
      }
    } else {
      singles.push_back(gpu_of_result(path, read_result_file(path)));
    }
  }
  for (auto& g : singles)
    if (!from_fleet.count({g.host, g.index})) out.gpus.push_back(std::move(g));
  // One physical GPU under several names (copied files, a host renamed) would count twice.
  for (const auto& g : out.gpus) {
    if (!g.result) continue;
    const auto dev = g.result->environment.find("device");
    if (dev == g.result->environment.end() || !dev->is_object()) continue;
    const auto uuid = dev->find("uuid");
    if (uuid == dev->end() || !uuid->is_string() || uuid->get<std::string>().empty()) continue;
    const auto [it, fresh] = by_uuid.try_emplace(uuid->get<std::string>(), g.name());
    if (!fresh)
      out.warnings.push_back(
          fmt::format("{} and {} have the same GPU UUID {}: one GPU counted twice?", it->second, g.name(), it->first));
  }
  return out;
}

}  // namespace cudabench::cli
