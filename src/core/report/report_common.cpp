// See report_common.hpp.
#include "report_common.hpp"

#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "cudabench/errors.hpp"
#include "cudabench/format_value.hpp"
#include "cudabench/report.hpp"
#include "cudabench/stats.hpp"
#include "cudabench/text_safety.hpp"

namespace cudabench {
namespace report_detail {

std::string format_change(std::optional<double> pct) {
  if (!pct || !std::isfinite(*pct)) return "n/a";
  if (std::abs(*pct) < 0.05) return "0.0%";
  return fmt::format("{:+.1f}%", *pct);
}

std::string change_text(const compare_change& ch) {
  switch (ch.outcome) {
    case verdict::failed:
    case verdict::only_in_baseline:
    case verdict::only_in_candidate: return "-";
    default: return format_change(ch.change_pct);
  }
}

namespace {
// Beyond this a percentage says only "no idea" (a launch-bound row in single-round files, say):
// printed as a bound, not as 60 digits. Real changes of 78x (+7700%) still print as numbers.
constexpr double kPctShown = 10000;

std::string ci_bound(double pct) {
  if (pct <= -kPctShown) return fmt::format("<-{:g}", kPctShown);
  if (pct >= kPctShown) return fmt::format(">+{:g}", kPctShown);
  return fmt::format("{:+.1f}", pct + 0.0);
}
}  // namespace

std::string format_ci(const compare_change& ch) {
  if (!ch.ci_low_pct || !ch.ci_high_pct || !std::isfinite(*ch.ci_low_pct) || !std::isfinite(*ch.ci_high_pct)) return "";
  if (*ch.ci_low_pct == *ch.ci_high_pct) return "";  // deterministic metric: no interval to show
  return "[" + ci_bound(*ch.ci_low_pct) + ", " + ci_bound(*ch.ci_high_pct) + "]";
}

std::string ci_level(const comparison& c) { return fmt::format("{:g}%", 100 * (1 - c.alpha)); }

std::string format_p(std::optional<double> p) {
  if (!p || !std::isfinite(*p)) return "-";
  if (*p < 0.0001) return "<0.0001";
  return fmt::format("{:.4f}", *p);
}

std::string verdict_text(verdict v) {
  switch (v) {
    case verdict::only_in_baseline: return "only in baseline";
    case verdict::only_in_candidate: return "only in candidate";
    default: return to_string(v);
  }
}

std::string cell_text(const compare_cell& c) {
  if (!c.present) return "-";
  if (c.state != status::ok) {
    std::string s = to_string(c.state);
    for (char& ch : s) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    return s;
  }
  return format_value(c.median) + (c.throttled ? "*" : "");
}

std::string summary_line(const comparison& c, std::size_t candidate) {
  const auto n = c.counts(candidate);
  auto at = [&](verdict v) { return n[static_cast<std::size_t>(v)]; };
  std::string s = fmt::format("{} vs {}: {} improved, {} regressed, {} unchanged, {} inconclusive",
                              c.labels[candidate + 1], c.labels[0], at(verdict::improved), at(verdict::regressed),
                              at(verdict::unchanged), at(verdict::inconclusive));
  if (at(verdict::failed)) s += fmt::format(", {} failed", at(verdict::failed));
  if (at(verdict::only_in_baseline)) s += fmt::format(", {} only in baseline", at(verdict::only_in_baseline));
  if (at(verdict::only_in_candidate)) s += fmt::format(", {} only in candidate", at(verdict::only_in_candidate));
  return s;
}

std::string format_mde(std::optional<double> pct) {
  if (!pct || !std::isfinite(*pct)) return "-";
  if (*pct >= kPctShown) return fmt::format(">{:g}%", kPctShown);
  return *pct >= 100  ? fmt::format("{:.0f}%", *pct)
         : *pct >= 10 ? fmt::format("{:.1f}%", *pct)
                      : fmt::format("{:.2g}%", *pct);
}

std::string format_fewer(std::optional<double> pct) {
  if (!pct || !std::isfinite(*pct)) return "-";
  return fmt::format("{:+.1f}%", *pct);
}

std::string cycles_energy_text(const compare_change& ch) {
  std::string s;
  if (ch.cycles_change_pct) s = "cycles " + format_fewer(ch.cycles_change_pct);
  if (ch.energy_change_pct) s += (s.empty() ? "" : ", ") + std::string("energy ") + format_fewer(ch.energy_change_pct);
  return s;
}

std::string mde_line(const comparison& c, std::size_t candidate) {
  std::vector<double> v;
  const compare_row* worst = nullptr;
  int within = 0;
  for (const auto& r : c.rows) {
    const auto& m = r.changes[candidate].mde_pct;
    if (!m) continue;
    v.push_back(*m);
    within += *m <= c.threshold_pct;
    if (!worst || *m > *worst->changes[candidate].mde_pct) worst = &r;
  }
  const std::string who = c.candidates() > 1 ? fmt::format(" [{}]", c.labels[candidate + 1]) : "";
  if (v.empty()) return fmt::format("minimum detectable change{}: no row was tested", who);
  return fmt::format(
      "minimum detectable change{} ({:g}% power): median {} over {} tested row{}, {} within the {:g}% threshold; "
      "largest {} ({})",
      who, c.power * 100, format_mde(median(v)), v.size(), v.size() == 1 ? "" : "s", within, c.threshold_pct,
      format_mde(worst->changes[candidate].mde_pct), worst->name);
}

std::string settings_text(const comparison& c) {
  if (!c.method.empty()) return c.method;
  return fmt::format("alpha {:g}, threshold {:g}%", c.alpha, c.threshold_pct);
}

bool any_throttled(const comparison& c) {
  for (const auto& r : c.rows)
    if (r.throttled()) return true;
  return false;
}

std::vector<std::string> failure_notes(const comparison& c) {
  std::vector<std::string> out;
  for (const auto& r : c.rows)
    for (std::size_t k = 0; k < r.changes.size(); ++k)
      if (r.changes[k].outcome == verdict::failed) {
        const std::string who = c.candidates() > 1 ? fmt::format(" [{}]", c.labels[k + 1]) : "";
        out.push_back(fmt::format("{}{}: {}", r.name, who, r.changes[k].note));
      }
  return out;
}

std::vector<std::string> context_notes(const comparison& c) {
  std::vector<std::string> out;
  for (const auto& r : c.rows)
    for (std::size_t k = 0; k < r.changes.size(); ++k) {
      const auto& ch = r.changes[k];
      std::string what = ch.context;
      if (ch.tuning_differs) what += (what.empty() ? "" : "; ") + std::string("tuning differs");
      if (what.empty() || ch.outcome == verdict::unchanged) continue;
      const std::string who = c.candidates() > 1 ? fmt::format(" [{}]", c.labels[k + 1]) : "";
      out.push_back(fmt::format("{}{}: {}", r.name, who, what));
    }
  return out;
}

std::vector<std::string> na_change_notes(const comparison& c) {
  std::vector<std::string> out;
  for (const auto& r : c.rows)
    for (std::size_t k = 0; k < r.changes.size(); ++k) {
      const auto& ch = r.changes[k];
      const bool shows_na = (r.cells[0].present || r.cells[k + 1].present) && change_text(ch) == "n/a";
      if (!shows_na) continue;
      const std::string who = c.candidates() > 1 ? fmt::format(" [{}]", c.labels[k + 1]) : "";
      out.push_back(fmt::format("{}{}: {}", r.name, who, ch.note.empty() ? "no percentage change" : ch.note));
    }
  return out;
}

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

namespace {
// Every string a text report shows, for reading (F = const string&) or rewriting (F = string&).
template <class C, class F>
void for_each_shown(C& c, F&& f) {
  for (auto& s : c.labels) f(s);
  for (auto& s : c.sources) f(s);
  if (c.single_round_warning) f(*c.single_round_warning);
  if (c.gpu_warning) f(*c.gpu_warning);
  if (c.library_warning) f(*c.library_warning);
  for (auto& d : c.env_differences) {
    f(d.field);
    for (auto& v : d.values) f(v);
  }
  for (auto& r : c.rows) {
    f(r.id);
    f(r.kind);
    f(r.metric);
    f(r.unit);
    f(r.name);
    for (auto& cell : r.cells) f(cell.message);
    for (auto& ch : r.changes) {
      f(ch.note);
      f(ch.context);
    }
  }
}
}  // namespace

std::optional<comparison> text_safe(const comparison& c) {
  bool any = false;
  for_each_shown(c, [&any](const std::string& s) { any = any || has_control_text(s); });
  if (!any) return std::nullopt;
  comparison safe = c;
  for_each_shown(safe, [](std::string& s) { s = terminal_text(s); });
  return safe;
}

std::size_t display_width(const std::string& s) {
  std::size_t w = 0;
  for (unsigned char ch : s) w += (ch & 0xC0) != 0x80;
  return w;
}

std::string pad(const std::string& s, std::size_t width, bool right_align) {
  const std::size_t w = display_width(s);
  if (w >= width) return s;
  const std::string fill(width - w, ' ');
  return right_align ? fill + s : s + fill;
}

}  // namespace report_detail

std::unique_ptr<reporter> make_reporter(const std::string& format, const report_options& options) {
  if (format == "table") return std::make_unique<table_reporter>(options);
  if (format == "markdown") return std::make_unique<markdown_reporter>();
  if (format == "csv") return std::make_unique<csv_reporter>();
  if (format == "json") return std::make_unique<json_reporter>();
  throw input_error(fmt::format("unknown format \"{}\" (expected table, markdown, csv, json)", format));
}

}  // namespace cudabench
