// Which workloads the report shows and one workload's card (report_html_parts.hpp). Workloads come
// in the baseline's order, then those only later files have (as in `compare`); the metrics are the
// --metric list where a file has them, else the headline (first) metric, so the plots show what the
// comparison judges.
#include <map>
#include <set>

#include <fmt/format.h>

#include "cudabench/html.hpp"
#include "report_common.hpp"
#include "report_html_parts.hpp"

namespace cudabench::report_html_detail {

bool workload_view::throttled() const {
  for (const auto* w : per_file)
    if (w && (w->clocks.throttled || !w->clocks.throttle_reasons.empty())) return true;
  return false;
}

std::vector<std::string> file_labels(const std::vector<result_file>& files) {
  std::map<std::string, int> seen;
  std::vector<std::string> out;
  for (const auto& f : files) {
    const std::string l = f.label();
    const int k = ++seen[l];
    out.push_back(k == 1 ? l : fmt::format("{} ({})", l, k));
  }
  return out;
}

std::string color_class(std::size_t file) { return fmt::format("c{}", file % 8); }

std::vector<workload_view> collect_workloads(const std::vector<result_file>& files, const compare_options& options) {
  std::vector<workload_view> out;
  std::map<std::string, std::size_t> index;
  for (std::size_t f = 0; f < files.size(); ++f)
    for (const auto& w : files[f].workloads) {
      if (options.filter && !options.filter(w.id)) continue;
      auto [it, fresh] = index.emplace(w.id, out.size());
      if (fresh) {
        workload_view v;
        v.id = w.id;
        v.kind = w.kind;
        v.params = &w.params;
        v.per_file.assign(files.size(), nullptr);
        out.push_back(std::move(v));
      }
      out[it->second].per_file[f] = &w;
    }
  for (auto& v : out) {
    if (options.metrics.empty()) {
      for (const auto* w : v.per_file)
        if (w && !w->metrics.empty()) {
          v.metrics.push_back(w->metrics.front().first);
          break;
        }
    } else {
      for (const auto& m : options.metrics)
        for (const auto* w : v.per_file)
          if (w && w->find_metric(m)) {
            v.metrics.push_back(m);
            break;
          }
    }
  }
  return out;
}

namespace {

std::string validation_text(const workload_result& w) {
  if (!w.validation) return w.state == status::ok ? "not checked" : "-";
  const auto& v = *w.validation;
  return fmt::format("{} (max rel. error {:.3g}, tolerance {:.3g})", v.passed ? "passed" : "FAILED", v.max_rel_error,
                     v.tolerance);
}

int rounds_of(const workload_result& w) {
  std::set<int> r;
  for (const auto& [name, m] : w.metrics) r.insert(m.rounds.begin(), m.rounds.end());
  return r.empty() ? 1 : static_cast<int>(r.size());
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : sep) + x;
  return s;
}

// One row per file: status, validation, rounds, throttling, tuning, message.
std::string status_table(const workload_view& w, const std::vector<std::string>& labels) {
  std::string s =
      "<table><tr><th>file</th><th>status</th><th>validation</th><th>rounds</th><th>clocks</th>"
      "<th>tuning</th><th>message</th></tr>";
  for (std::size_t f = 0; f < w.per_file.size(); ++f) {
    const workload_result* r = w.per_file[f];
    s += "<tr><td>" + html::escape(labels[f]) + "</td>";
    if (!r) {
      s += "<td colspan=\"6\" class=\"sub\">not in this file</td></tr>";
      continue;
    }
    const bool ok = r->state == status::ok;
    const bool throttled = r->clocks.throttled || !r->clocks.throttle_reasons.empty();
    s += fmt::format("<td class=\"{}\">{}</td>", ok ? "st-ok" : "st-bad", html::escape(to_string(r->state)));
    s += fmt::format("<td class=\"{}\">{}</td>", r->validation && !r->validation->passed ? "st-bad" : "",
                     html::escape(validation_text(*r)));
    s += fmt::format("<td class=\"num\">{}</td>", rounds_of(*r));
    std::string clocks = throttled ? "throttled" : "steady";
    if (!r->clocks.throttle_reasons.empty()) clocks += ": " + join(r->clocks.throttle_reasons, ", ");
    s += fmt::format("<td class=\"{}\">{}</td>", throttled ? "st-bad" : "", html::escape(clocks));
    const std::string tuning = r->tuning.empty() ? "" : r->tuning.dump();
    s += "<td class=\"mono\">" + html::escape(html::truncate(tuning, 120)) + "</td>";
    s += "<td>" + html::escape(r->message) + "</td></tr>";
  }
  return s + "</table>";
}

// "CUDA 12.4: +4.8% [+2.1, +7.5] improved" badges for the rows of this workload.
std::string verdict_badges(const workload_view& w, const comparison& cmp) {
  std::string s;
  for (const auto& row : cmp.rows) {
    if (row.id != w.id) continue;
    for (std::size_t c = 0; c < row.changes.size(); ++c) {
      const auto& ch = row.changes[c];
      if (!row.cells[0].present && !row.cells[c + 1].present) continue;
      std::string text = cmp.candidates() > 1 ? cmp.labels[c + 1] + ": " : "";
      if (w.metrics.size() > 1) text += row.metric + " ";
      const std::string change = report_detail::change_text(ch);
      if (change != "-") text += change + " ";
      text += report_detail::verdict_text(ch.outcome);
      s += fmt::format("<span class=\"badge {}\">{}</span>", to_string(ch.outcome), html::escape(text));
    }
  }
  return s;
}

}  // namespace

std::string workload_card(const workload_view& w, std::size_t index, const std::vector<result_file>& files,
                          const std::vector<std::string>& labels, const comparison* cmp) {
  const bool throttled = w.throttled();
  std::string title = readable_name(w.id, w.kind, *w.params, "", "", {});
  std::string s =
      fmt::format("<article class=\"wl{}\" id=\"w{}\"><h3>{}", throttled ? " thr" : "", index, html::escape(title));
  if (throttled) s += "<span class=\"badge thr\">throttled</span>";
  if (cmp) s += verdict_badges(w, *cmp);
  s += "</h3><div class=\"sub mono\">" + html::escape(w.id) + "</div><div class=\"charts\">";
  for (const auto& m : w.metrics) s += samples_chart(w, m, labels);
  s += clock_charts(w, files, labels);
  s += "</div>" + status_table(w, labels) + "</article>\n";
  return s;
}

}  // namespace cudabench::report_html_detail
