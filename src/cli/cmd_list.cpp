// `cudabench list`: what a suite expands to (one line per workload, or JSON for scripts such as
// scripts/torch_reference.py), or with --kinds / no suite, every workload kind and its parameters
// (the source of the docs). Never touches the GPU.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli/commands.hpp"
#include "cli/suite_loading.hpp"
#include "cudabench/kind_description.hpp"
#include "cudabench/kind_rules.hpp"
#include "cudabench/kind_schema.hpp"
#include "cudabench/text_safety.hpp"

namespace cudabench::cli {
namespace {

struct list_options {
  std::string suite;
  std::string filter;
  std::string format = "table";
  bool kinds = false;
  std::uint64_t max_workloads = default_max_workloads;
};

std::string scalar_text(const nlohmann::json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::string range_text(const param_def& p) {
  const bool lo = std::isfinite(p.min), hi = std::isfinite(p.max);
  if (lo && hi) return fmt::format("{}..{}", p.min, p.max);
  if (lo) return fmt::format(">= {}", p.min);
  if (hi) return fmt::format("<= {}", p.max);
  return "";
}

std::string allowed_text(const param_def& p) {
  if (!p.choices.empty()) return fmt::format("{}", fmt::join(p.choices, "|"));
  return range_text(p);
}

std::string default_text(const param_def& p) {
  if (!p.default_value.is_null()) return "default " + scalar_text(p.default_value);
  return p.required ? "required" : "optional";
}

void print_kinds_table(const kind_catalog& kinds) {
  if (kinds.empty()) {
    fmt::print("no workload kinds are registered in this build\n");
    return;
  }
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    const auto& k = kinds[i];
    if (i) fmt::print("\n");
    fmt::print("{}: {}\n", k.kind, k.description);
    std::size_t w_name = 0, w_type = 0, w_default = 0, w_allowed = 0;
    for (const auto& p : k.params) {
      w_name = std::max(w_name, p.name.size());
      w_type = std::max(w_type, std::string(type_name(p.type)).size());
      w_default = std::max(w_default, default_text(p).size());
      w_allowed = std::max(w_allowed, allowed_text(p).size());
    }
    for (const auto& p : k.params) {
      const std::string help = p.in_id ? p.help : p.help + " (not part of the id)";
      fmt::print("  {:<{}}  {:<{}}  {:<{}}  {:<{}}  {}\n", p.name, w_name, type_name(p.type), w_type, default_text(p),
                 w_default, allowed_text(p), w_allowed, help);
    }
    for (const auto& r : k.rules) fmt::print("  rule: {}\n", describe_rule(r));
  }
}

// Bounds are doubles in kind_schema; print integral ones as JSON integers.
nlohmann::ordered_json bound_json(double v) {
  if (v == std::floor(v) && std::fabs(v) < 9.0e15) return static_cast<std::int64_t>(v);
  return v;
}

nlohmann::ordered_json kinds_json(const kind_catalog& kinds) {
  auto out = nlohmann::ordered_json::array();
  for (const auto& k : kinds) {
    auto params = nlohmann::ordered_json::array();
    for (const auto& p : k.params) {
      nlohmann::ordered_json j;
      j["name"] = p.name;
      j["type"] = type_name(p.type);
      j["help"] = p.help;
      if (!p.default_value.is_null()) j["default"] = p.default_value;
      j["required"] = p.required && p.default_value.is_null();
      if (!p.choices.empty()) j["choices"] = p.choices;
      if (std::isfinite(p.min)) j["min"] = bound_json(p.min);
      if (std::isfinite(p.max)) j["max"] = bound_json(p.max);
      j["in_id"] = p.in_id;
      params.push_back(std::move(j));
    }
    auto rules = nlohmann::ordered_json::array();
    for (const auto& r : k.rules) rules.push_back(describe_rule(r));
    out.push_back({{"kind", k.kind}, {"description", k.description}, {"params", std::move(params)}, {"rules", rules}});
  }
  return nlohmann::ordered_json{{"kinds", std::move(out)}};
}

void print_suite(const list_options& o) {
  const suite s = load_cli_suite(o.suite, o.max_workloads);
  const auto selected = filter_workloads(s, o.filter);
  if (o.format == "json") {
    nlohmann::ordered_json j;
    j["suite"] = suite_identity_json(s);
    j["settings"] = suite_defaults_json(s.defaults);
    j["workloads"] = to_json(selected);
    fmt::print("{}\n", json_text_safe(j.dump(2)));
    return;
  }
  fmt::print("suite {} ({}){}\n", terminal_text(s.name), terminal_text(s.source),
             s.description.empty() ? "" : ": " + terminal_text(s.description));
  fmt::print("settings: repetitions {}, warmup {}, min_time_ms {}\n", s.defaults.repetitions, s.defaults.warmup,
             s.defaults.min_time_ms);
  const std::size_t width = std::to_string(selected.size()).size();
  for (std::size_t i = 0; i < selected.size(); ++i)
    fmt::print("  {:>{}}  {}\n", i + 1, width, terminal_text(selected[i].id));
  if (selected.size() == s.workloads.size())
    fmt::print("{} workload{}\n", selected.size(), selected.size() == 1 ? "" : "s");
  else fmt::print("{} of {} workloads (filter \"{}\")\n", selected.size(), s.workloads.size(), terminal_text(o.filter));
}

}  // namespace

void add_list(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<list_options>();
  auto* sub = app.add_subcommand("list", "Show what a suite expands to, or every workload kind (no GPU needed)");
  sub->add_option("--suite", o->suite, "Suite name (configs/NAME.json) or path; without it, list the kinds");
  sub->add_option("--filter", o->filter, "Keep workloads whose id matches a glob (* ?, comma-separated)");
  sub->add_option("--format", o->format, "table or json")->check(CLI::IsMember({"table", "json"}));
  sub->add_flag("--kinds", o->kinds, "List every workload kind with its parameters");
  add_max_workloads_option(*sub, o->max_workloads);
  sub->footer(
      "Examples:\n"
      "  cudabench list --suite full --filter 'matmul/*'\n"
      "  cudabench list --suite quick --format json      (ids and params for scripts)\n"
      "  cudabench list --kinds                          (every kind and its parameters)");
  sub->callback([o, &exit_code] {
    if (o->kinds || o->suite.empty()) {
      const auto kinds = builtin_kinds();
      if (o->format == "json") fmt::print("{}\n", kinds_json(kinds).dump(2));
      else print_kinds_table(kinds);
    } else {
      print_suite(*o);
    }
    exit_code = 0;
  });
}

}  // namespace cudabench::cli
