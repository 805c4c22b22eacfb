// Terminal table. A comparison: environment differences, then one aligned row per (workload,
// metric), then the footnotes and one summary line per candidate. Verdicts are coloured only when
// asked to (report_options::color: the CLI sets it for a tty without NO_COLOR). A run summary: one
// aligned row per metric, and the throttling footnote.
#include <optional>
#include <vector>

#include <fmt/format.h>

#include "cudabench/report.hpp"
#include "report_common.hpp"

namespace cudabench {
namespace {

using namespace report_detail;

const char* colour_of(verdict v) {
  switch (v) {
    case verdict::improved: return "\033[32m";      // green
    case verdict::regressed: return "\033[1;31m";   // bold red
    case verdict::inconclusive: return "\033[33m";  // yellow
    case verdict::failed: return "\033[35m";        // magenta
    default: return "";
  }
}

// Prints rows of cells with per-column widths; `right[i]` right-aligns column i.
void print_grid(std::ostream& out, const std::vector<std::vector<std::string>>& rows, const std::vector<bool>& right,
                const std::vector<std::vector<const char*>>& colours) {
  std::vector<std::size_t> width(right.size(), 0);
  for (const auto& r : rows)
    for (std::size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], display_width(r[i]));
  for (std::size_t ri = 0; ri < rows.size(); ++ri) {
    std::string line;
    for (std::size_t i = 0; i < rows[ri].size(); ++i) {
      const bool last = i + 1 == rows[ri].size();
      std::string cell = last && !right[i] ? rows[ri][i] : pad(rows[ri][i], width[i], right[i]);
      const char* col = ri < colours.size() && i < colours[ri].size() ? colours[ri][i] : "";
      if (col && *col) cell = std::string(col) + cell + "\033[0m";
      line += (i ? "  " : "") + cell;
    }
    out << line << '\n';
  }
}

}  // namespace

void table_reporter::report(const comparison& given, std::ostream& out) const {
  const std::optional<comparison> safe = report_detail::text_safe(given);  // control characters escaped
  const comparison& c = safe ? *safe : given;
  out << fmt::format("baseline:  {} ({})\n", c.labels[0], c.sources[0]);
  for (std::size_t i = 1; i < c.labels.size(); ++i)
    out << fmt::format("candidate: {} ({})\n", c.labels[i], c.sources[i]);
  out << '\n';
  for (const auto* warning : {&c.gpu_warning, &c.library_warning}) {
    if (!*warning) continue;
    const std::string w = "WARNING: " + **warning;
    out << (options_.color ? "\033[1;31m" + w + "\033[0m" : w) << "\n\n";
  }
  if (!c.env_differences.empty()) {
    out << "Environment differences:\n";
    std::vector<std::vector<std::string>> env{{"  field"}};
    for (const auto& l : c.labels) env[0].push_back(l);
    for (const auto& d : c.env_differences) {
      env.push_back({"  " + d.field});
      for (const auto& v : d.values) env.back().push_back(v);
    }
    print_grid(out, env, std::vector<bool>(c.labels.size() + 1, false), {});
    out << '\n';
  }

  const std::size_t nc = c.candidates();
  // Files recorded without NVML's clock and energy (every file before them) print as they always did.
  const bool aids = c.has_cycles_or_energy();
  std::vector<std::vector<std::string>> grid;
  std::vector<std::vector<const char*>> colours;
  std::vector<bool> right{false};
  std::vector<std::string> header{"workload"};
  for (const auto& l : c.labels) {
    header.push_back(l);
    right.push_back(true);
  }
  for (std::size_t k = 0; k < nc; ++k) {
    const std::string suffix = nc > 1 ? " " + c.labels[k + 1] : "";
    header.push_back("change" + suffix);
    header.push_back(ci_level(c) + " CI" + suffix);
    header.push_back("p(adj)" + suffix);
    header.push_back("mde" + suffix);
    header.push_back("verdict" + suffix);
    right.insert(right.end(), {true, true, true, true, false});
    if (aids) {
      header.push_back("cycles" + suffix);
      header.push_back("energy" + suffix);
      right.insert(right.end(), {true, true});
    }
  }
  grid.push_back(header);
  colours.emplace_back();
  for (const auto& r : c.rows) {
    std::vector<std::string> line{r.name};
    std::vector<const char*> col(1 + c.labels.size(), "");
    for (const auto& cell : r.cells) line.push_back(cell_text(cell));
    for (std::size_t k = 0; k < nc; ++k) {
      const auto& ch = r.changes[k];
      const bool applicable = r.cells[0].present || r.cells[k + 1].present;
      line.push_back(applicable ? change_text(ch) : "");
      line.push_back(applicable ? format_ci(ch) : "");
      line.push_back(applicable ? format_p(ch.p_adjusted) : "");
      line.push_back(applicable ? format_mde(ch.mde_pct) : "");
      line.push_back(applicable ? verdict_text(ch.outcome) : "");
      col.insert(col.end(), {"", "", "", "", options_.color && applicable ? colour_of(ch.outcome) : ""});
      if (aids) {
        line.push_back(applicable ? format_fewer(ch.cycles_change_pct) : "");
        line.push_back(applicable ? format_fewer(ch.energy_change_pct) : "");
        col.insert(col.end(), {"", ""});
      }
    }
    grid.push_back(line);
    colours.push_back(col);
  }
  // Header underline: one dash run per column, as wide as the column.
  std::vector<std::string> rule;
  for (std::size_t i = 0; i < header.size(); ++i) {
    std::size_t w = 0;
    for (const auto& g : grid) w = std::max(w, display_width(g[i]));
    rule.push_back(std::string(w, '-'));
  }
  grid.insert(grid.begin() + 1, rule);
  colours.insert(colours.begin() + 1, std::vector<const char*>{});
  print_grid(out, grid, right, colours);

  out << '\n';
  if (any_throttled(c)) out << throttle_footnote << '\n';
  for (const auto& n : failure_notes(c)) out << "failed: " << n << '\n';
  for (const auto& n : context_notes(c)) out << "context: " << n << '\n';
  for (const auto& n : na_change_notes(c)) out << "n/a: " << n << '\n';
  if (c.single_round_warning) out << "note: " << *c.single_round_warning << '\n';
  for (std::size_t k = 0; k < nc; ++k) out << summary_line(c, k) << '\n';
  for (std::size_t k = 0; k < nc; ++k) out << mde_line(c, k) << '\n';
  out << "(" << settings_text(c) << "; change: positive = better; "
      << (aids ? std::string(cycles_energy_legend) + "; " : "") << c.noise_summary << ")\n";
}

void table_reporter::report(const result_file& r, std::ostream& out) const {
  const std::vector<run_row> rows = run_rows(r);
  const run_row header{"workload", "status", "metric", "median", "unit", "spread", "min", "max/message"};
  std::size_t w[8] = {};
  auto widen = [&](const run_row& x) {
    const std::string* f8[] = {&x.workload, &x.status, &x.metric, &x.median, &x.unit, &x.spread, &x.min, &x.max};
    for (int i = 0; i < 8; ++i) w[i] = std::max(w[i], f8[i]->size());
  };
  widen(header);
  for (const auto& x : rows) widen(x);
  auto line = [&](const run_row& x) {
    return fmt::format("{:<{}}  {:<{}}  {:<{}}  {:>{}}  {:<{}}  {:>{}}  {:>{}}  {}\n", x.workload, w[0], x.status, w[1],
                       x.metric, w[2], x.median, w[3], x.unit, w[4], x.spread, w[5], x.min, w[6], x.max);
  };
  out << line(header);
  for (const auto& x : rows) out << line(x);
  if (any_throttled(r)) out << run_throttle_footnote << '\n';
}

}  // namespace cudabench
