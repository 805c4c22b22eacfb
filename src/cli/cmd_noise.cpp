// `cudabench noise [FILE] [--history DB]`: the noise table compare's verdicts use, one line per row
// and GPU model: where the between-session noise comes from (history, committed, fallback), from how
// many sessions and degrees of freedom, and the between-session and within-session sd. With a result
// file: exactly that file's rows (as its baseline role in compare would see them); without: every
// row the committed prior or the history measured. A file with rounds also shows the within-session
// prior its own rounds give the rows no measurement knows (pooled_noise.hpp). docs/statistics.md.
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/commands.hpp"
#include "cli/history_noise.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/id_filter.hpp"
#include "cudabench/pooled_noise.hpp"
#include "cudabench/result.hpp"
#include "cudabench/round_test.hpp"
#include "cudabench/row_noise.hpp"
#include "cudabench/suite.hpp"
#include "cudabench/text_safety.hpp"

namespace cudabench::cli {
namespace {

// What the history's session count leaves out or merges, said after its name.
std::string history_notes(const noise_prior& history) {
  std::vector<std::string> notes;
  if (history.runs_already_counted())
    notes.push_back(fmt::format("{} of its runs left out: files the committed prior was measured from",
                                history.runs_already_counted()));
  if (history.runs_in_shared_sessions())
    notes.push_back(
        fmt::format("{} run{} measured at the same time as another on one card (an ab's other side) "
                    "counted in that run's session",
                    history.runs_in_shared_sessions(), history.runs_in_shared_sessions() == 1 ? "" : "s"));
  return notes.empty() ? "" : fmt::format(" ({})", fmt::join(notes, "; "));
}

struct noise_args {
  std::vector<std::string> files;
  std::string history, gpu, filter, format = "table";
  std::vector<std::string> metrics;
};

struct noise_line {
  std::string gpu, id, kind, metric;
  nlohmann::ordered_json params = nlohmann::ordered_json::object();
  round_evidence rounds;  // the file's rounds of this row (none without a file)
};

// A workload id's kind and parameters ("matmul/dtype=fp16/m=1024" -> matmul, {dtype: fp16, m: 1024}):
// what the fallback table needs for rows known only by id.
noise_line from_id(const std::string& gpu, const std::string& id, const std::string& metric) {
  noise_line l{gpu, id, id.substr(0, id.find('/')), metric};
  std::size_t pos = id.find('/');
  while (pos != std::string::npos) {
    const std::size_t next = id.find('/', pos + 1);
    const std::string part = id.substr(pos + 1, next == std::string::npos ? std::string::npos : next - pos - 1);
    const std::size_t eq = part.find('=');
    if (eq != std::string::npos) {
      const std::string key = part.substr(0, eq), value = part.substr(eq + 1);
      char* end = nullptr;
      const double number = std::strtod(value.c_str(), &end);
      if (!value.empty() && end && *end == '\0') l.params[key] = number;
      else l.params[key] = value;
    }
    pos = next;
  }
  return l;
}

std::string pct(double sd) { return fmt::format("{:.3f}", sd * 100); }

int run_noise(const noise_args& a) {
  std::optional<noise_prior> history;
  noise_evidence ev = default_noise_evidence();
  if (!a.history.empty()) {
    history = read_history_noise(a.history);
    ev.history = &*history;
  }
  auto wanted_metric = [&](const std::string& m) {
    for (const auto& w : a.metrics)
      if (w == m) return true;
    return a.metrics.empty();
  };
  std::vector<noise_line> lines;
  if (a.files.size() > 1) throw input_error("noise takes at most one result file (the baseline whose rows to show)");
  if (!a.files.empty()) {
    const result_file f = read_result_file(a.files[0]);
    const auto dev = f.environment.find("device");
    std::string gpu;
    if (dev != f.environment.end() && dev->is_object() && dev->contains("name") && (*dev)["name"].is_string())
      gpu = (*dev)["name"].get<std::string>();
    for (const auto& w : f.workloads) {
      if (!a.filter.empty() && !id_matches(w.id, a.filter)) continue;
      for (std::size_t i = 0; i < w.metrics.size(); ++i) {
        const std::string& m = w.metrics[i].first;
        if (a.metrics.empty() ? i != 0 : !wanted_metric(m)) continue;  // compare's default: the headline
        noise_line l{gpu, w.id, w.kind, m, w.params, {w.kind}};
        const metric& samples = w.metrics[i].second;
        if (w.state == status::ok && !samples.samples.empty())
          add_round_evidence(l.rounds, round_medians(samples.samples, samples.rounds));
        lines.push_back(std::move(l));
      }
    }
  } else {
    std::map<std::tuple<std::string, std::string, std::string>, bool> seen;
    for (const noise_prior* p : {ev.committed, ev.history})
      if (p)
        for (const auto& r : p->rows())
          if ((a.gpu.empty() || r.gpu == a.gpu) && (a.filter.empty() || id_matches(r.id, a.filter)) &&
              wanted_metric(r.metric) && !seen[{r.gpu, r.id, r.metric}]) {
            seen[{r.gpu, r.id, r.metric}] = true;
            lines.push_back(from_id(r.gpu, r.id, r.metric));
          }
  }
  if (lines.empty()) {
    // An empty table would read as "no noise known"; say which selection matched nothing.
    std::string selection;
    if (!a.filter.empty()) selection += fmt::format(" --filter {}", a.filter);
    if (!a.metrics.empty()) selection += fmt::format(" --metric {}", fmt::join(a.metrics, ","));
    if (!a.files.empty()) throw input_error(fmt::format("no row of {} matches{}", a.files[0], selection));
    std::string hint;
    if (!a.gpu.empty()) {
      selection += fmt::format(" --gpu {}", a.gpu);
      std::set<std::string> gpus;
      for (const noise_prior* p : {ev.committed, ev.history})
        if (p)
          for (const auto& r : p->rows()) gpus.insert(r.gpu);
      if (!gpus.count(a.gpu)) hint = fmt::format(" (--gpu takes a full model name: {})", fmt::join(gpus, ", "));
    }
    throw input_error(
        fmt::format("no row of the noise prior{} matches{}{}", history ? " or the history" : "", selection, hint));
  }
  const bool csv = a.format == "csv";
  std::vector<std::vector<std::string>> grid{
      {"row", "gpu", "source", "sessions", "df", "session_sd_pct", "within_sd_pct", "within_source"}};
  std::map<std::string, int> by_source;
  // A file with rounds is evidence of its own rows' round noise, as in a comparison of it.
  std::vector<noise_model> models;
  std::vector<round_evidence> evidence;
  for (const auto& l : lines) {
    models.push_back(row_noise(ev, l.gpu, l.id, l.kind, l.metric, l.params));
    evidence.push_back(l.rounds);
  }
  const int pooled = pool_round_noise(evidence, models);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const noise_line& l = lines[i];
    const noise_model& n = models[i];
    ++by_source[n.session_source];
    grid.push_back({l.id + " · " + l.metric, l.gpu.empty() ? "-" : l.gpu, n.session_source, std::to_string(n.sessions),
                    n.session_df > 0 ? fmt::format("{:g}", n.session_df) : "known", pct(n.session_sd), pct(n.round_sd),
                    n.round_source});
  }
  if (csv) {
    for (const auto& g : grid) {
      std::string line;
      for (std::size_t i = 0; i < g.size(); ++i) {
        const bool quote = g[i].find_first_of(",\"") != std::string::npos;
        line += (i ? "," : "") + (quote ? "\"" + g[i] + "\"" : g[i]);
      }
      std::cout << terminal_text(line) << '\n';
    }
    return 0;
  }
  std::vector<std::size_t> width(grid[0].size(), 0);
  for (const auto& g : grid)
    for (std::size_t i = 0; i < g.size(); ++i) width[i] = std::max(width[i], g[i].size());
  for (const auto& g : grid) {
    std::string line;
    for (std::size_t i = 0; i < g.size(); ++i)
      line += (i ? "  " : "") + (i >= 3 && i <= 6 ? fmt::format("{:>{}}", g[i], width[i])
                                                  : fmt::format("{:<{}}", g[i], i + 1 == g.size() ? 0 : width[i]));
    std::cout << terminal_text(line) << '\n';
  }
  std::string summary;
  for (const auto& [source, n] : by_source) summary += fmt::format("{}{} {}", summary.empty() ? "" : ", ", source, n);
  std::cout << fmt::format(
      "\n{} row{}: {}. sd of log per-round medians in %; session = between machine starts (df: its degrees of "
      "freedom, 'known' for the fallback table), within = between rounds of one session. Committed prior: {}{}.{}\n",
      lines.size(), lines.size() == 1 ? "" : "s", summary.empty() ? "none" : summary, ev.committed->source(),
      history ? ", history: " + history->source() + history_notes(*history) : "",
      pooled
          ? fmt::format(" Within-session noise of {} row{} that no measurement knows: pooled from this file's rounds "
                        "(empirical Bayes per kind, as compare does).",
                        pooled, pooled == 1 ? "" : "s")
          : "");
  return 0;
}

}  // namespace

void add_noise(CLI::App& app, int& exit_code) {
  auto args = std::make_shared<noise_args>();
  auto* cmd = app.add_subcommand("noise", "Print the noise table compare's verdicts use (no GPU needed)");
  cmd->add_option("file", args->files, "A result file: show its rows (default: every measured row)");
  cmd->add_option("--history", args->history, "Run-history database whose runs measure session noise");
  cmd->add_option("--gpu", args->gpu, "Only rows of this GPU model (without a file)");
  cmd->add_option("--filter", args->filter, "Only workload ids matching this glob (* and ?, comma = or)");
  cmd->add_option("--metric", args->metrics, "Metrics, comma-separated (default: all; with a file, the headline)")
      ->delimiter(',');
  cmd->add_option("--format", args->format, "Output format")
      ->check(CLI::IsMember({"table", "csv"}))
      ->capture_default_str();
  cmd->footer(
      "Sources: history (--history), committed (configs/noise_prior.json, generated by scripts/noise_prior.py from\n"
      "results/), history+committed (pooled), fallback (the kind's documented table: no measured sessions).\n"
      "Exit codes: 0 ok, 2 bad input (an unreadable result file or history database).");
  cmd->callback([args, &exit_code] { exit_code = run_noise(*args); });
}

}  // namespace cudabench::cli
