// See round_merge.hpp.
#include "cudabench/round_merge.hpp"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "cudabench/errors.hpp"

namespace cudabench {
namespace {

struct gathered {
  std::vector<std::pair<int, const workload_result*>> per_round;  // (round index, result)
};

std::string suite_key(const result_file& r) {
  auto get = [&](const char* k) {
    auto it = r.suite.find(k);
    return it != r.suite.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  return get("name") + "\n" + get("sha256");
}

workload_result merge_one(const std::string& id, const gathered& g, int nrounds,
                          const std::vector<int>& rounds_without_result) {
  workload_result out;
  const workload_result& first = *g.per_round.front().second;
  out.id = id;
  out.kind = first.kind;
  out.params = first.params;
  out.state = status::ok;

  // Status: the first round that is not ok decides.
  for (const auto& [round, w] : g.per_round)
    if (w->state != status::ok) {
      out.state = w->state;
      out.message = fmt::format("round {} of {}: {}", round + 1, nrounds, w->message);
      break;
    }
  std::vector<std::string> notes;
  if (out.state == status::ok) {
    for (const auto& [round, w] : g.per_round)
      if (!w->message.empty()) {
        notes.push_back(fmt::format("round {}: {}", round + 1, w->message));
        break;  // one example is enough; every round's message is in its own file
      }
  }
  std::vector<int> missing;
  for (int r = 0; r < nrounds; ++r) {
    const bool present =
        std::any_of(g.per_round.begin(), g.per_round.end(), [&](const auto& p) { return p.first == r; });
    if (!present) missing.push_back(r + 1);
  }
  if (!missing.empty())
    notes.push_back(fmt::format("missing from round{} {} (that process stopped early)", missing.size() == 1 ? "" : "s",
                                fmt::join(missing, ", ")));
  (void)rounds_without_result;
  for (const auto& n : notes) out.message += (out.message.empty() ? "" : "; ") + n;

  // Metrics: samples of every round that measured them, in round order, tagged with the round.
  std::vector<std::string> names;
  for (const auto& [round, w] : g.per_round)
    for (const auto& [n, m] : w->metrics)
      if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  for (const auto& name : names) {
    std::vector<double> samples;
    std::vector<int> idx;
    const metric* proto = nullptr;
    for (const auto& [round, w] : g.per_round)
      if (const metric* m = w->find_metric(name)) {
        if (!proto) proto = m;
        for (double v : m->samples) {
          samples.push_back(v);
          idx.push_back(round);
        }
      }
    if (samples.empty()) continue;
    metric m = make_metric(proto->unit, proto->direction, std::move(samples));
    m.rounds = std::move(idx);
    out.metrics.emplace_back(name, std::move(m));
  }

  for (const auto& [round, w] : g.per_round) {
    if (w->validation) {
      if (!out.validation) {
        out.validation = w->validation;
      } else {
        out.validation->passed = out.validation->passed && w->validation->passed;
        out.validation->max_rel_error = std::max(out.validation->max_rel_error, w->validation->max_rel_error);
        out.validation->tolerance = w->validation->tolerance;
      }
    }
    out.clocks.sm_mhz.insert(out.clocks.sm_mhz.end(), w->clocks.sm_mhz.begin(), w->clocks.sm_mhz.end());
    out.clocks.power_w.insert(out.clocks.power_w.end(), w->clocks.power_w.begin(), w->clocks.power_w.end());
    for (const auto& r : w->clocks.throttle_reasons)
      if (std::find(out.clocks.throttle_reasons.begin(), out.clocks.throttle_reasons.end(), r) ==
          out.clocks.throttle_reasons.end())
        out.clocks.throttle_reasons.push_back(r);
    out.clocks.throttled = out.clocks.throttled || w->clocks.throttled;
    if (out.clocks.energy_absent.empty() && !w->clocks.energy_absent.empty())  // the first round's reason
      out.clocks.energy_absent = fmt::format("round {}: {}", round + 1, w->clocks.energy_absent);
    if (w->peak_memory_bytes)
      out.peak_memory_bytes = std::max(out.peak_memory_bytes.value_or(0), *w->peak_memory_bytes);
    if (w->oom_requested_bytes && !out.oom_requested_bytes) out.oom_requested_bytes = w->oom_requested_bytes;
  }

  out.tuning = first.tuning;
  bool differs = false;
  for (const auto& [round, w] : g.per_round) differs = differs || w->tuning != first.tuning;
  if (differs)
    for (const auto& [round, w] : g.per_round) out.tuning_by_round.push_back({{"round", round}, {"tuning", w->tuning}});
  return out;
}

}  // namespace

result_file merge_rounds(const std::vector<round_input>& rounds) {
  const round_input* head = nullptr;
  for (const auto& r : rounds)
    if (r.has_result) {
      head = &r;
      break;
    }
  if (!head) throw input_error(fmt::format("none of the {} rounds produced a result file", rounds.size()));
  for (const auto& r : rounds)
    if (r.has_result && suite_key(r.result) != suite_key(head->result))
      throw input_error("rounds to merge come from different suites (name or sha256 differ)");

  result_file out;
  out.schema_version = head->result.schema_version;
  out.tool = head->result.tool;
  out.build = head->result.build;
  out.environment = head->result.environment;
  out.suite = head->result.suite;
  out.settings = head->result.settings;
  out.rounds = static_cast<int>(rounds.size());
  out.settings["rounds"] = out.rounds;
  out.started_at = head->result.started_at;

  std::vector<std::string> order;
  std::map<std::string, gathered> by_id;
  std::vector<int> without;
  for (std::size_t i = 0; i < rounds.size(); ++i) {
    const auto& r = rounds[i];
    nlohmann::ordered_json log = {{"round", static_cast<int>(i)}, {"exit_code", r.exit_code}};
    if (r.has_result) {
      log["started_at"] = r.result.started_at;
      log["finished_at"] = r.result.finished_at;
      if (!r.result.finished_at.empty()) out.finished_at = std::max(out.finished_at, r.result.finished_at);
      for (const auto& w : r.result.workloads) {
        auto [it, fresh] = by_id.try_emplace(w.id);
        if (fresh) order.push_back(w.id);
        it->second.per_round.emplace_back(static_cast<int>(i), &w);
      }
    } else {
      without.push_back(static_cast<int>(i));
    }
    if (!r.note.empty()) log["note"] = r.note;
    out.round_log.push_back(std::move(log));
  }
  for (const auto& id : order) out.workloads.push_back(merge_one(id, by_id.at(id), out.rounds, without));
  return out;
}

}  // namespace cudabench
