// Markdown, the seed's table style, usable as a PR comment or in README:
//   | workload | CUDA 12.1 | CUDA 12.4 | change |
// With 3+ files, one value column per file and one change column per candidate. Regressions are
// bold; failed cells show the status in capitals ("OOM"). A run summary: a heading with the label
// and GPU, one table row per metric.
#include <optional>

#include <fmt/format.h>

#include "cudabench/report.hpp"
#include "cudabench/text_safety.hpp"
#include "report_common.hpp"

namespace cudabench {
namespace {

using namespace report_detail;

std::string escape(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '|' || ch == '*') out += '\\';
    out += ch;
  }
  return out;
}

std::string change_verdict(const compare_change& ch);

// "-4.0% [-4.6, -3.4] regressed (mde 1.2%; cycles -0.3%, energy +1.0%)": the minimum detectable
// change beside every tested row, and where both files measured them the cycles and energy per run.
std::string change_cell(const compare_change& ch) {
  std::string aside = ch.mde_pct ? "mde " + format_mde(ch.mde_pct) : "";
  const std::string aids = cycles_energy_text(ch);
  if (!aids.empty()) aside += (aside.empty() ? "" : "; ") + aids;
  return change_verdict(ch) + (aside.empty() ? "" : " (" + aside + ")");
}

std::string change_verdict(const compare_change& ch) {
  const std::string ci = format_ci(ch);
  const std::string value = format_change(ch.change_pct) + (ci.empty() ? "" : " " + ci);
  switch (ch.outcome) {
    case verdict::improved: return value + " improved";
    case verdict::regressed: return "**" + value + " regressed**";
    case verdict::unchanged: return value + " unchanged";
    case verdict::inconclusive: return value + " inconclusive";
    default: return verdict_text(ch.outcome);
  }
}

}  // namespace

void markdown_reporter::report(const comparison& given, std::ostream& out) const {
  const std::optional<comparison> safe = report_detail::text_safe(given);  // control characters escaped
  const comparison& c = safe ? *safe : given;
  const std::size_t nc = c.candidates();
  if (c.gpu_warning) out << "**WARNING: " << escape(*c.gpu_warning) << "**\n\n";
  if (c.library_warning) out << "**WARNING: " << escape(*c.library_warning) << "**\n\n";
  if (!c.env_differences.empty()) {
    std::string head = "| environment |", rule = "| --- |";
    for (const auto& l : c.labels) {
      head += " " + escape(l) + " |";
      rule += " --- |";
    }
    out << head << '\n' << rule << '\n';
    for (const auto& d : c.env_differences) {
      std::string line = "| " + d.field + " |";
      for (const auto& v : d.values) line += " " + escape(v) + " |";
      out << line << '\n';
    }
    out << '\n';
  }

  std::string head = "| workload |", rule = "| --- |";
  for (const auto& l : c.labels) {
    head += " " + escape(l) + " |";
    rule += " ---: |";
  }
  for (std::size_t k = 0; k < nc; ++k) {
    head += nc > 1 ? " change " + escape(c.labels[k + 1]) + " |" : " change |";
    rule += " ---: |";
  }
  out << head << '\n' << rule << '\n';
  for (const auto& r : c.rows) {
    std::string line = "| " + escape(r.name) + " |";
    for (const auto& cell : r.cells) line += " " + escape(cell_text(cell)) + " |";
    for (std::size_t k = 0; k < nc; ++k) {
      const bool applicable = r.cells[0].present || r.cells[k + 1].present;
      line += " " + (applicable ? change_cell(r.changes[k]) : std::string("-")) + " |";  // bold kept: not escaped
    }
    out << line << '\n';
  }
  out << '\n';
  if (any_throttled(c)) out << '\\' << throttle_footnote << "\n\n";
  const auto notes = failure_notes(c);
  for (const auto& n : notes) out << "- failed: " << escape(n) << '\n';
  const auto ctx = context_notes(c);
  for (const auto& n : ctx) out << "- context: " << escape(n) << '\n';
  const auto na = na_change_notes(c);
  for (const auto& n : na) out << "- n/a: " << escape(n) << '\n';
  if (!notes.empty() || !ctx.empty() || !na.empty()) out << '\n';
  if (c.single_round_warning) out << "Note: " << escape(*c.single_round_warning) << "\n\n";
  for (std::size_t k = 0; k < nc; ++k) out << summary_line(c, k) << "  \n";
  for (std::size_t k = 0; k < nc; ++k) out << escape(mde_line(c, k)) << "  \n";
  out << "<sub>" << settings_text(c) << "; change: positive = better, [" << ci_level(c)
      << " confidence interval], (mde: minimum detectable change); "
      << (c.has_cycles_or_energy() ? std::string(cycles_energy_legend) + "; " : "") << escape(c.noise_summary)
      << "</sub>\n";
}

void markdown_reporter::report(const result_file& r, std::ostream& out) const {
  out << fmt::format(
      "**{}** — {}\n\n", terminal_text(r.label()),
      terminal_text(
          r.environment.value("device", nlohmann::ordered_json::object()).value("name", std::string("unknown GPU"))));
  out << "| workload | status | metric | median | unit | spread | min | max |\n";
  out << "|---|---|---|---:|---|---:|---:|---:|\n";
  for (const auto& x : run_rows(r))
    out << fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", x.workload, x.status, x.metric, x.median, x.unit,
                       x.spread, x.min, x.max);
}

}  // namespace cudabench
