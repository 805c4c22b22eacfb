// Text formats of a history (history.hpp): table (terminal), markdown, csv (one line per series and
// run, tidy for a spreadsheet), json; and the run list of `history list`. The steps come first, in
// words, because they are the news; the per-run values follow, one block per series.
#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cudabench/errors.hpp"
#include "cudabench/history.hpp"
#include "report_common.hpp"

namespace cudabench {

namespace {

std::string quoted(const std::string& s) { return report_detail::csv_field(s); }

// 12 hex digits, keeping a "-dirty" mark (build_commit.hpp) so an edited tree's runs stay told apart.
std::string short_commit(const std::string& c) {
  const std::string dirty = "-dirty";
  const bool is_dirty = c.size() > dirty.size() && c.compare(c.size() - dirty.size(), dirty.size(), dirty) == 0;
  return c.substr(0, std::min<std::size_t>(12, c.size() - (is_dirty ? dirty.size() : 0))) + (is_dirty ? dirty : "");
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// The value column: "660.1", "660.1*" when throttled, the status in capitals when not ok, "-".
std::string value_text(const history_series& s, std::size_t run) {
  if (s.values[run]) return format_value(*s.values[run]) + (s.throttled[run] ? "*" : "");
  if (s.states[run] && *s.states[run] != status::ok) return upper(to_string(*s.states[run]));
  return "-";
}

const history_series::step* step_at(const history_series& s, std::size_t run) {
  for (const auto& st : s.steps)
    if (st.run == run) return &st;
  return nullptr;
}

std::string detection_text(const history_view& h) {
  const auto& d = h.options.detection;
  return fmt::format(
      "a step is a least-squares split of log values with |change| >= {:g}%, permutation p < {:g} "
      "({} reorderings), >= {} runs on each side",
      d.threshold_pct, d.alpha, d.permutations, d.min_segment);
}

std::vector<std::string> step_lines(const history_view& h) {
  std::vector<std::string> out;
  for (const auto& s : h.series)
    for (const auto& st : s.steps) out.push_back(describe_step(h, s, st));
  return out;
}

void text_report(const history_view& h, std::ostream& out, bool markdown) {
  const auto steps = step_lines(h);
  out << fmt::format("{}History: {} runs, {} series ({}).\n\n", markdown ? "" : "", h.runs.size(), h.series.size(),
                     detection_text(h));
  out << (markdown ? "**Steps**\n\n" : "Steps:\n");
  if (steps.empty()) out << (markdown ? "- none\n" : "  none\n");
  for (const auto& l : steps) out << (markdown ? "- " : "  ") << l << "\n";
  for (const auto& s : h.series) {
    out << "\n";
    if (markdown) {
      out << "### " << s.name << "\n\n`" << s.workload_id << "` " << s.metric << "\n\n"
          << "| run | started | value | commit | toolkit | driver | label | step |\n"
          << "| ---: | --- | ---: | --- | --- | --- | --- | --- |\n";
    } else {
      out << s.name << "   [" << s.workload_id << " · " << s.metric << "]\n";
      out << fmt::format("  {:>5}  {:<22} {:>12}  {:<12}  {:<12}  {:<12}  {}\n", "run", "started", "value", "commit",
                         "toolkit", "driver", "label");
    }
    for (std::size_t r = 0; r < h.runs.size(); ++r) {
      if (!s.values[r] && !s.states[r]) continue;  // the workload was not in this run
      const auto& run = h.runs[r];
      const auto* st = step_at(s, r);
      const std::string step =
          st ? fmt::format("step {:+.1f}% ({})", st->where.change_pct, st->worse ? "worse" : "better") : "";
      if (markdown) {
        out << fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} |\n", run.id, run.started_at, value_text(s, r),
                           short_commit(run.git_commit), run.toolkit, run.driver, run.label,
                           step.empty() ? "" : "**" + step + "**");
      } else {
        out << fmt::format("  {:>5}  {:<22} {:>12}  {:<12}  {:<12}  {:<12}  {}{}\n", run.id, run.started_at,
                           value_text(s, r), short_commit(run.git_commit), run.toolkit, run.driver, run.label,
                           step.empty() ? "" : "   <- " + step);
      }
    }
  }
  if (markdown) out << "\n";
  bool throttled = false;
  for (const auto& s : h.series)
    for (bool t : s.throttled) throttled = throttled || t;
  if (throttled) out << "\n* clocks throttled during that run's repetitions\n";
}

void csv_report(const history_view& h, std::ostream& out) {
  out << "workload_id,metric,name,unit,better,run_id,started_at,status,value,throttled,git_commit,toolkit,cuda_runtime,"
         "driver,label,step_pct,step_p_value\n";
  for (const auto& s : h.series)
    for (std::size_t r = 0; r < h.runs.size(); ++r) {
      if (!s.values[r] && !s.states[r]) continue;
      const auto& run = h.runs[r];
      const auto* st = step_at(s, r);
      out << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", quoted(s.workload_id),
                         quoted(s.metric), quoted(s.name), quoted(s.unit),
                         s.direction == better::higher ? "higher" : "lower", run.id, quoted(run.started_at),
                         s.states[r] ? to_string(*s.states[r]) : "absent",
                         s.values[r] ? fmt::format("{}", *s.values[r]) : "", s.throttled[r] ? "true" : "false",
                         quoted(run.git_commit), quoted(run.toolkit), quoted(run.cuda_runtime), quoted(run.driver),
                         quoted(run.label), st ? fmt::format("{}", st->where.change_pct) : "",
                         st ? fmt::format("{}", st->where.p_value) : "");
    }
}

nlohmann::ordered_json run_json(const history_run& r) {
  return {{"id", r.id},
          {"started_at", r.started_at},
          {"finished_at", r.finished_at},
          {"label", r.label},
          {"git_commit", r.git_commit},
          {"toolkit", r.toolkit},
          {"cuda_runtime", r.cuda_runtime},
          {"driver", r.driver},
          {"cublas", r.cublas},
          {"cudnn", r.cudnn},
          {"gpu", r.gpu},
          {"device_uuid", r.device_uuid},
          {"host", r.host},
          {"suite", r.suite},
          {"rounds", r.rounds},
          {"points", r.workloads},
          {"source", r.source},
          {"content_sha256", r.content_sha256},
          {"added_at", r.added_at}};
}

void json_report(const history_view& h, std::ostream& out) {
  nlohmann::ordered_json j;
  j["history_schema_version"] = history_schema_version;
  const auto& d = h.options.detection;
  j["detection"] = {{"method", "least-squares single split of log values, permutation test, binary segmentation"},
                    {"threshold_pct", d.threshold_pct},
                    {"alpha", d.alpha},
                    {"min_segment", d.min_segment},
                    {"permutations", d.permutations}};
  j["runs"] = nlohmann::ordered_json::array();
  for (const auto& r : h.runs) j["runs"].push_back(run_json(r));
  j["series"] = nlohmann::ordered_json::array();
  for (const auto& s : h.series) {
    nlohmann::ordered_json js = {{"workload_id", s.workload_id},
                                 {"metric", s.metric},
                                 {"name", s.name},
                                 {"unit", s.unit},
                                 {"better", s.direction == better::higher ? "higher" : "lower"}};
    js["points"] = nlohmann::ordered_json::array();
    for (std::size_t r = 0; r < h.runs.size(); ++r) {
      if (!s.values[r] && !s.states[r]) continue;
      nlohmann::ordered_json p = {{"run_id", h.runs[r].id},
                                  {"status", s.states[r] ? to_string(*s.states[r]) : "absent"}};
      p["value"] = s.values[r] ? nlohmann::ordered_json(*s.values[r]) : nlohmann::ordered_json(nullptr);
      p["throttled"] = static_cast<bool>(s.throttled[r]);
      js["points"].push_back(p);
    }
    js["steps"] = nlohmann::ordered_json::array();
    for (const auto& st : s.steps)
      js["steps"].push_back({{"run_id", h.runs[st.run].id},
                             {"previous_run_id", h.runs[st.previous].id},
                             {"started_at", h.runs[st.run].started_at},
                             {"change_pct", st.where.change_pct},
                             {"p_value", st.where.p_value},
                             {"before", st.where.before},
                             {"after", st.where.after},
                             {"worse", st.worse},
                             {"changed", run_differences(h.runs[st.previous], h.runs[st.run])},
                             {"text", describe_step(h, s, st)}});
    j["series"].push_back(js);
  }
  out << j.dump(2) << "\n";
}

}  // namespace

void write_history(const history_view& h, const std::string& format, std::ostream& out) {
  if (format == "table") return text_report(h, out, false);
  if (format == "markdown") return text_report(h, out, true);
  if (format == "csv") return csv_report(h, out);
  if (format == "json") return json_report(h, out);
  if (format == "html") return write_history_html(h, out);
  throw input_error(fmt::format("unknown format \"{}\" (expected table, markdown, csv, json, html)", format));
}

void write_history_runs(const std::vector<history_run>& runs, const std::string& format, std::ostream& out) {
  if (format == "json") {
    nlohmann::ordered_json j = nlohmann::ordered_json::array();
    for (const auto& r : runs) j.push_back(run_json(r));
    out << j.dump(2) << "\n";
  } else if (format == "csv") {
    out << "id,started_at,label,git_commit,toolkit,cuda_runtime,driver,gpu,host,suite,rounds,points,source\n";
    for (const auto& r : runs)
      out << fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{}\n", r.id, quoted(r.started_at), quoted(r.label),
                         quoted(r.git_commit), quoted(r.toolkit), quoted(r.cuda_runtime), quoted(r.driver),
                         quoted(r.gpu), quoted(r.host), quoted(r.suite), r.rounds, r.workloads, quoted(r.source));
  } else if (format == "table") {
    out << fmt::format("{:>5}  {:<22} {:<18} {:<12}  {:<10}  {:<12}  {:<16}  {:>6}  {}\n", "run", "started", "label",
                       "commit", "toolkit", "driver", "GPU", "rounds", "source");
    for (const auto& r : runs)
      out << fmt::format("{:>5}  {:<22} {:<18} {:<12}  {:<10}  {:<12}  {:<16}  {:>6}  {}\n", r.id, r.started_at,
                         r.label, short_commit(r.git_commit), r.toolkit, r.driver, r.gpu, r.rounds, r.source);
    out << runs.size() << " runs\n";
  } else {
    throw input_error(fmt::format("unknown format \"{}\" (expected table, csv, json)", format));
  }
}

}  // namespace cudabench
