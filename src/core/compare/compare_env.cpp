// compare_results, part one: labels and what differs between the files' environments. See
// compare_parts.hpp.
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "compare_parts.hpp"

namespace cudabench::compare_detail {
namespace {

std::string env_value(const result_file& f, const std::string& field) {
  const nlohmann::ordered_json* v = nullptr;
  auto get = [](const nlohmann::ordered_json& obj, const char* key) -> const nlohmann::ordered_json* {
    if (!obj.is_object()) return nullptr;
    auto it = obj.find(key);
    return it == obj.end() ? nullptr : &*it;
  };
  if (field == "device") {
    if (auto* d = get(f.environment, "device")) v = get(*d, "name");
  } else if (field == "cuda_toolkit" || field == "cuda_architectures" || field == "build_type") {
    v = get(f.build, field.c_str());
  } else {
    v = get(f.environment, field.c_str());
  }
  if (!v || v->is_null()) return "-";
  if (v->is_string()) return v->get<std::string>().empty() ? "-" : v->get<std::string>();
  return v->dump();
}

std::string session_of(const result_file& f) {
  const auto it = f.interleave.find("session");
  return it != f.interleave.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

void describe_files(const std::vector<result_file>& files, comparison& out) {
  const std::size_t nf = files.size();
  std::map<std::string, int> seen;
  for (const auto& f : files) {
    const std::string l = f.label();
    const int k = ++seen[l];
    out.labels.push_back(k == 1 ? l : fmt::format("{} ({})", l, k));
  }

  for (const char* field : {"device", "driver_version", "cuda_runtime", "cuda_toolkit", "cublas", "cudnn",
                            "cuda_architectures", "build_type"}) {
    env_difference d{field, {}};
    for (const auto& f : files) d.values.push_back(env_value(f, field));
    if (std::set<std::string>(d.values.begin(), d.values.end()).size() > 1) out.env_differences.push_back(d);
  }
  {
    std::set<std::string> gpus;
    std::string listed;
    for (std::size_t i = 0; i < nf; ++i) {
      const std::string g = env_value(files[i], "device");
      if (g == "-") continue;
      gpus.insert(g);
      listed += fmt::format("{}{} ({})", listed.empty() ? "" : ", ", g, out.labels[i]);
    }
    if (gpus.size() > 1)
      out.gpu_warning = fmt::format(
          "the files ran on different GPU models: {}; the numbers compare hardware, "
          "not just the software stack",
          listed);
  }

  {
    std::vector<std::string> mixed;
    for (std::size_t i = 0; i < nf; ++i) {
      const auto it = files[i].environment.find("library_mix");
      if (it != files[i].environment.end() && it->is_string())
        mixed.push_back(fmt::format("{}: {}", out.labels[i], it->get<std::string>()));
    }
    if (!mixed.empty())
      out.library_warning = fmt::format(
          "a run loaded a mix of CUDA library releases, so its rows do not measure the stack its label names ({})",
          fmt::join(mixed, " | "));
  }

  // One interleaved session (`cudabench ab`): the sides share machine, power state and drift, so
  // the between-session term cancels.
  const std::string base_session = session_of(files[0]);
  for (std::size_t i = 1; i < nf; ++i)
    out.same_session.push_back(!base_session.empty() && session_of(files[i]) == base_session);
}

}  // namespace cudabench::compare_detail
