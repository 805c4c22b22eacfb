// The environment table (report_html_parts.hpp): one column per file, one row per fact that
// explains a number (GPU, clocks, power limit, driver, toolkit, the cuBLAS/cuDNN actually loaded
// and from where, host, suite, rounds). Cells of a row whose values differ between the files are
// highlighted; compare's own list of differences and its GPU-model warning are shown above.
#include <functional>
#include <set>

#include <fmt/format.h>

#include "cudabench/html.hpp"
#include "report_html_parts.hpp"

namespace cudabench::report_html_detail {

namespace {

using oj = nlohmann::ordered_json;

const oj* at(const oj& obj, std::initializer_list<const char*> path) {
  const oj* cur = &obj;
  for (const char* key : path) {
    if (!cur->is_object()) return nullptr;
    const auto it = cur->find(key);
    if (it == cur->end()) return nullptr;
    cur = &*it;
  }
  return cur;
}

std::string text(const oj* v) {
  if (!v || v->is_null()) return "";
  if (v->is_string()) return v->get<std::string>();
  if (v->is_boolean()) return v->get<bool>() ? "yes" : "no";
  return v->dump();
}

std::string gib(const oj* v) {
  if (!v || !v->is_number()) return "";
  return fmt::format("{:.1f} GiB", v->get<double>() / (1024.0 * 1024 * 1024));
}

struct field {
  const char* name;
  std::function<std::string(const result_file&)> value;
};

std::vector<field> fields() {
  auto env = [](std::initializer_list<const char*> p) {
    return [p = std::vector<const char*>(p)](const result_file& f) {
      const oj* cur = &f.environment;
      for (const char* k : p) {
        cur = at(*cur, {k});
        if (!cur) return std::string();
      }
      return text(cur);
    };
  };
  return {
      {"GPU", env({"device", "name"})},
      {"compute capability", env({"device", "compute_capability"})},
      {"SMs", env({"device", "sm_count"})},
      {"GPU memory",
       [](const result_file& f) {
         return gib(at(f.environment, {"device", "memory_bytes"}));
       }},
      {"max SM clock (MHz)", env({"device", "max_sm_clock_mhz"})},
      {"max memory clock (MHz)", env({"device", "max_memory_clock_mhz"})},
      {"power limit (W)", env({"device", "power_limit_w"})},
      {"ECC / MIG",
       [](const result_file& f) {
         const std::string e = text(at(f.environment, {"device", "ecc"})),
                           m = text(at(f.environment, {"device", "mig"}));
         return e.empty() && m.empty() ? std::string() : fmt::format("{} / {}", e, m);
       }},
      {"driver", env({"driver_version"})},
      {"CUDA driver API", env({"cuda_driver_api"})},
      {"CUDA runtime", env({"cuda_runtime"})},
      {"toolkit (build)", [](const result_file& f) { return text(at(f.build, {"cuda_toolkit"})); }},
      {"architectures", [](const result_file& f) { return text(at(f.build, {"cuda_architectures"})); }},
      {"cuBLAS loaded", env({"cublas"})},
      {"cuBLAS library", env({"cublas_library"})},
      {"cuDNN loaded", env({"cudnn"})},
      {"cuDNN library", env({"cudnn_library"})},
      {"host", env({"hostname"})},
      {"cudabench",
       [](const result_file& f) {
         const std::string v = text(at(f.tool, {"version"})), c = text(at(f.tool, {"git_commit"}));
         return c.empty() ? v : fmt::format("{} ({})", v, c);
       }},
      {"suite",
       [](const result_file& f) {
         const std::string n = text(at(f.suite, {"name"})), sha = text(at(f.suite, {"sha256"}));
         return sha.empty() ? n : fmt::format("{} (sha256 {})", n, sha.substr(0, 12));
       }},
      {"started", [](const result_file& f) { return f.started_at; }},
      {"finished", [](const result_file& f) { return f.finished_at; }},
      {"rounds", [](const result_file& f) { return std::to_string(f.rounds); }},
      {"interleaved session",
       [](const result_file& f) {
         const std::string s = text(at(f.interleave, {"session"}));
         return s.empty() ? std::string() : fmt::format("{} (schedule {})", s, text(at(f.interleave, {"schedule"})));
       }},
      {"settings",
       [](const result_file& f) {
         std::string out;  // "repetitions 5, warmup 2, ...": wraps, unlike a JSON dump
         for (const auto& [k, v] : f.settings.items()) out += (out.empty() ? "" : ", ") + k + " " + text(&v);
         return out;
       }},
  };
}

}  // namespace

std::string environment_section(const std::vector<result_file>& files, const std::vector<std::string>& sources,
                                const std::vector<std::string>& labels, const comparison* cmp) {
  std::string s = "<section id=\"environment\"><h2>Environment</h2>\n";
  if (cmp && cmp->gpu_warning) s += "<div class=\"warn\">Warning: " + html::escape(*cmp->gpu_warning) + "</div>\n";
  if (cmp && cmp->library_warning)
    s += "<div class=\"warn\">Warning: " + html::escape(*cmp->library_warning) + "</div>\n";
  if (cmp && !cmp->env_differences.empty()) {
    s += "<p>What differs between the files:</p><ul>";
    for (const auto& d : cmp->env_differences) {
      std::string vals;
      for (std::size_t i = 0; i < d.values.size(); ++i) vals += (i ? " \u2192 " : "") + d.values[i];
      s += "<li><b>" + html::escape(d.field) + "</b>: " + html::escape(vals) + "</li>";
    }
    s += "</ul>\n";
  } else if (files.size() > 1) {
    s += "<p>The files agree on GPU, driver, toolkit, cuBLAS, cuDNN and build.</p>\n";
  }
  s += "<table><tr><th></th>";
  for (std::size_t i = 0; i < files.size(); ++i)
    s += "<th>" + html::escape(labels[i]) + "<br><span class=\"sub mono\">" + html::escape(sources[i]) + "</span></th>";
  s += "</tr>\n";
  for (const auto& fd : fields()) {
    std::vector<std::string> v;
    for (const auto& f : files) v.push_back(fd.value(f));
    if (std::all_of(v.begin(), v.end(), [](const std::string& x) { return x.empty(); })) continue;
    const bool differs = std::set<std::string>(v.begin(), v.end()).size() > 1;
    s += std::string("<tr><th>") + fd.name + "</th>";
    for (const auto& x : v)
      s += std::string("<td") + (differs ? " class=\"diff\"" : "") + ">" + html::escape(x.empty() ? "-" : x) + "</td>";
    s += "</tr>\n";
  }
  return s + "</table></section>\n";
}

}  // namespace cudabench::report_html_detail
