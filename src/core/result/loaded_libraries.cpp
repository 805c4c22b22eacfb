// See loaded_libraries.hpp.
#include "cudabench/loaded_libraries.hpp"

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace cudabench {
namespace {

// lib<name>.so[.<numbers>]: the libraries whose soname number is the CUDA major (cudart, cublas,
// cublasLt, nvrtc, nvJitLink) and cuDNN's (whose number is cuDNN's own major).
const std::regex& library_name() {
  static const std::regex re(R"(^lib(cudart|cublasLt|cublas|nvrtc|nvJitLink|cudnn(_[a-z_]+)?)\.so((\.[0-9]+)*)$)");
  return re;
}

std::string base_name(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string dir_name(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? std::string(".") : path.substr(0, slash);
}

}  // namespace

std::vector<std::string> cuda_libraries_in_maps(std::string_view maps) {
  std::set<std::string> found;
  std::istringstream in{std::string(maps)};
  std::string line;
  while (std::getline(in, line)) {
    // address perms offset dev inode pathname: the path is the first field that starts with '/'
    const auto slash = line.find(" /");
    if (slash == std::string::npos) continue;
    std::string path = line.substr(slash + 1);
    const std::string deleted = " (deleted)";
    if (path.size() > deleted.size() && path.compare(path.size() - deleted.size(), deleted.size(), deleted) == 0)
      path.resize(path.size() - deleted.size());
    if (std::regex_match(base_name(path), library_name())) found.insert(path);
  }
  return {found.begin(), found.end()};
}

std::optional<std::string> library_mix_problem(const std::vector<std::string>& paths) {
  std::map<std::string, std::vector<std::string>> by_cuda_major;  // "12" -> the files that say so
  std::map<std::string, std::vector<std::string>> cudnn_dirs;     // directory -> cuDNN files in it
  for (const auto& p : paths) {
    std::smatch m;
    const std::string name = base_name(p);
    if (!std::regex_match(name, m, library_name())) continue;
    const std::string lib = m[1].str();
    if (lib.rfind("cudnn", 0) == 0) {
      cudnn_dirs[dir_name(p)].push_back(name);
      continue;
    }
    const std::string numbers = m[3].str();  // ".12" or ".12.4.127"
    if (numbers.size() < 2) continue;        // an unversioned name says no major
    const auto dot = numbers.find('.', 1);
    by_cuda_major[numbers.substr(1, dot == std::string::npos ? std::string::npos : dot - 1)].push_back(p);
  }
  std::vector<std::string> problems;
  if (by_cuda_major.size() > 1) {
    std::vector<std::string> parts;
    for (const auto& [major, files] : by_cuda_major)
      parts.push_back(fmt::format("CUDA {}: {}", major, fmt::join(files, ", ")));
    problems.push_back(
        fmt::format("CUDA libraries of {} CUDA majors are loaded ({})", by_cuda_major.size(), fmt::join(parts, "; ")));
  }
  if (cudnn_dirs.size() > 1) {
    std::vector<std::string> parts;
    for (const auto& [dir, files] : cudnn_dirs) parts.push_back(fmt::format("{}: {}", dir, fmt::join(files, ", ")));
    problems.push_back(
        fmt::format("cuDNN libraries come from {} directories ({})", cudnn_dirs.size(), fmt::join(parts, "; ")));
  }
  if (problems.empty()) return std::nullopt;
  return fmt::format("{}; the numbers do not measure one library stack", fmt::join(problems, "; "));
}

std::vector<std::string> loaded_cuda_libraries() {
  std::ifstream in("/proc/self/maps");
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  return cuda_libraries_in_maps(text.str());
}

}  // namespace cudabench
