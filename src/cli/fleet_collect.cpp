// See fleet_collect.hpp.
#include "cli/fleet_collect.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>

#include <fmt/format.h>

#include "cudabench/errors.hpp"

namespace cudabench::cli {
namespace {

namespace fs = std::filesystem;
using oj = nlohmann::ordered_json;

std::vector<std::string> files_of(const std::vector<std::string>& inputs, const std::string& exclude) {
  std::vector<std::string> out;
  auto excluded = [&](const fs::path& p) {
    std::error_code ec;
    return !exclude.empty() && fs::exists(exclude, ec) && fs::equivalent(p, exclude, ec);
  };
  for (const auto& in : inputs) {
    std::error_code ec;
    if (fs::is_directory(in, ec)) {
      std::vector<std::string> here;
      for (const auto& e : fs::directory_iterator(in))
        if (e.is_regular_file() && e.path().extension() == ".json" && !excluded(e.path()))
          here.push_back(e.path().string());
      std::sort(here.begin(), here.end());
      out.insert(out.end(), here.begin(), here.end());
    } else if (fs::is_regular_file(in, ec)) {
      if (!excluded(in)) out.push_back(in);
    } else {
      throw input_error(fmt::format("{}: no such file or directory", in));
    }
  }
  return out;
}

oj parse(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  try {
    return oj::parse(text.str());
  } catch (const nlohmann::json::parse_error& e) {
    throw input_error(fmt::format("{}: malformed JSON: {}", path, e.what()));
  }
}

bool looks_like_result(const oj& j) { return j.is_object() && j.contains("schema_version") && j.contains("workloads"); }

// Which GPU a per-GPU result file is: "HOST-gpu-N.json", else what the file says.
fleet_gpu gpu_of_result(const std::string& path, const oj& j) {
  fleet_gpu g;
  g.result = result_from_json(j, path);
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

collected collect_gpus(const std::vector<std::string>& inputs, const std::string& exclude) {
  collected out;
  std::map<std::pair<std::string, int>, std::string> from_fleet;  // GPU -> the fleet file that had it
  std::vector<fleet_gpu> singles;
  for (const auto& path : files_of(inputs, exclude)) {
    const oj j = parse(path);
    if (is_fleet_json(j)) {
      fleet_file f = fleet_from_json(j, path);
      for (auto& g : f.gpus) {
        const auto key = std::make_pair(g.host, g.index);
        if (const auto it = from_fleet.find(key); it != from_fleet.end())
          throw input_error(fmt::format("{} is in two fleet files: {} and {} (collect each host's summary once)",
                                        g.name(), it->second, path));
        from_fleet[key] = path;
        out.gpus.push_back(std::move(g));
      }
    } else if (looks_like_result(j)) {
      singles.push_back(gpu_of_result(path, j));
    } else {
      out.skipped.push_back(fmt::format("{}: neither a result nor a fleet file", path));
    }
  }
  for (auto& g : singles)
    if (!from_fleet.count({g.host, g.index})) out.gpus.push_back(std::move(g));
  return out;
}

}  // namespace cudabench::cli
