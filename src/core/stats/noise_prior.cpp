// See noise_prior.hpp.
#include "cudabench/noise_prior.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cudabench/errors.hpp"

namespace cudabench {

extern const char* const committed_noise_prior_json;  // generated from configs/noise_prior.json

namespace {

[[noreturn]] void bad(const std::string& source, const std::string& where, const std::string& what) {
  throw input_error(fmt::format("{}: {}: {} (regenerate it with scripts/noise_prior.py)", source, where, what));
}

std::optional<double> sd_field(const nlohmann::json& e, const char* key, const std::string& source,
                               const std::string& where) {
  auto it = e.find(key);
  if (it == e.end()) return std::nullopt;
  if (!it->is_number() || !std::isfinite(it->get<double>()) || it->get<double>() < 0)
    bad(source, where, fmt::format("{} must be a non-negative number", key));
  return it->get<double>();
}

int count_field(const nlohmann::json& e, const char* key, const std::string& source, const std::string& where) {
  auto it = e.find(key);
  if (it == e.end()) return 0;
  if (!it->is_number_integer() || it->get<long long>() < 0 || it->get<long long>() > 1000000)
    bad(source, where, fmt::format("{} must be a non-negative integer", key));
  return it->get<int>();
}

}  // namespace

void noise_prior::index() {
  by_key_.clear();
  for (std::size_t i = 0; i < rows_.size(); ++i) by_key_[{rows_[i].gpu, rows_[i].id, rows_[i].metric}] = i;
}

noise_prior noise_prior::parse(std::string_view text, const std::string& source) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    bad(source, "not JSON", e.what());
  }
  if (!doc.is_object() || !doc.contains("noise_prior_version")) bad(source, "top level", "not a noise prior file");
  if (doc["noise_prior_version"] != 1) bad(source, "noise_prior_version", "only version 1 is understood");
  if (!doc.contains("rows") || !doc["rows"].is_array()) bad(source, "rows", "missing or not an array");
  noise_prior out;
  out.source_ = source;
  // The files each session was measured from, by content hash (optional; a history run that is one
  // of them is not a new session).
  if (auto sessions = doc.find("sessions"); sessions != doc.end()) {
    if (!sessions->is_array()) bad(source, "sessions", "not an array");
    std::size_t k = 0;
    for (const auto& session : *sessions) {
      const std::string where = fmt::format("sessions[{}]", k++);
      if (!session.is_object()) bad(source, where, "not an object");
      auto shas = session.find("file_sha256");
      if (shas == session.end()) continue;
      if (!shas->is_array()) bad(source, where, "file_sha256 must be an array");
      for (const auto& sha : *shas) {
        const std::string hex = sha.is_string() ? sha.get<std::string>() : "";
        if (hex.size() != 64 || hex.find_first_not_of("0123456789abcdef") != std::string::npos)
          bad(source, where, "file_sha256 must hold SHA-256s in lowercase hex");
        out.files_.insert(hex);
      }
    }
  }
  std::size_t i = 0;
  for (const auto& e : doc["rows"]) {
    const std::string where = fmt::format("rows[{}]", i++);
    if (!e.is_object()) bad(source, where, "not an object");
    measured_noise m;
    for (auto [key, field] : {std::pair{"gpu", &m.gpu}, {"id", &m.id}, {"metric", &m.metric}}) {
      auto it = e.find(key);
      if (it == e.end() || !it->is_string() || it->get<std::string>().empty())
        bad(source, where, fmt::format("{} must be a non-empty string", key));
      *field = it->get<std::string>();
    }
    m.sessions = count_field(e, "sessions", source, where);
    m.rounds = count_field(e, "rounds", source, where);
    m.round_sd = sd_field(e, "round_sd", source, where);
    m.round_df = count_field(e, "round_df", source, where);
    m.session_sd = sd_field(e, "session_sd", source, where);
    m.session_df = count_field(e, "session_df", source, where);
    if (m.round_sd.has_value() != (m.round_df > 0)) bad(source, where, "round_sd and a positive round_df go together");
    if (auto it = e.find("round_level"); it != e.end()) {
      if (*it != "latest") bad(source, where, "round_level must be \"latest\" when present");
      m.round_latest_level = true;
    }
    if (m.session_sd.has_value() != (m.session_df > 0))
      bad(source, where, "session_sd and a positive session_df go together");
    // Sessions of one level (no code change of the row between them) lend their spread: df = sessions - levels.
    m.levels = e.contains("levels") ? count_field(e, "levels", source, where) : 1;
    if (m.levels < 1 || (m.sessions > 0 && m.levels > m.sessions))
      bad(source, where, "levels must be between 1 and sessions");
    if (m.session_df > 0 && m.session_df != m.sessions - m.levels)
      bad(source, where, "session_df must be sessions - levels");
    out.rows_.push_back(std::move(m));
  }
  out.index();
  if (out.by_key_.size() != out.rows_.size()) bad(source, "rows", "a (gpu, id, metric) appears twice");
  return out;
}

const noise_prior& noise_prior::committed() {
  static const noise_prior prior = parse(committed_noise_prior_json, "configs/noise_prior.json (built in)");
  return prior;
}

namespace {

// A timestamp as cudabench writes it (UTC, "2026-12-07T13:01:46Z"): such strings order as the times do.
bool utc_timestamp(const std::string& t) { return t.size() == 20 && t[4] == '-' && t[10] == 'T' && t[19] == 'Z'; }

}  // namespace

std::map<std::int64_t, std::int64_t> noise_prior::history_sessions(const std::vector<const history_run*>& runs) {
  // Runs measured at overlapping times on one card share a machine start: the two sides of an
  // interleaved `ab` alternate processes, so A and B carry the same session level. Counted as two
  // sessions they would measure session noise from differences within one (too small: nightly mode
  // would then call a session's drift a change). Runs on other cards at the same time (`run
  // --devices`, `ab --devices`) stay apart: a card's own level is session noise too.
  std::vector<const history_run*> sorted(runs);
  std::sort(sorted.begin(), sorted.end(), [](const history_run* a, const history_run* b) {
    return std::tie(a->host, a->device_uuid, a->started_at, a->id) <
           std::tie(b->host, b->device_uuid, b->started_at, b->id);
  });
  std::map<std::int64_t, std::int64_t> session;
  const history_run* open = nullptr;  // first run of the session being swept
  std::string open_until;
  for (const history_run* r : sorted) {
    const bool timed = utc_timestamp(r->started_at) && utc_timestamp(r->finished_at) && !r->device_uuid.empty();
    if (open && timed && r->host == open->host && r->device_uuid == open->device_uuid && r->started_at < open_until) {
      session[r->id] = open->id;
      open_until = std::max(open_until, r->finished_at);
      continue;
    }
    session[r->id] = r->id;
    open = timed ? r : nullptr;
    open_until = timed ? r->finished_at : "";
  }
  return session;
}

noise_prior noise_prior::from_history(const std::vector<history_run>& runs, const std::vector<history_point>& points,
                                      const std::string& source, const noise_prior* counted) {
  noise_prior out;
  std::map<std::int64_t, const history_run*> run_by_id;
  std::vector<const history_run*> kept;
  for (const auto& r : runs) {
    if (counted && counted->counts_file(r.content_sha256)) {
      ++out.runs_already_counted_;
      continue;
    }
    run_by_id[r.id] = &r;
    kept.push_back(&r);
  }
  const auto session = history_sessions(kept);
  for (const auto& [run, first] : session) out.runs_in_shared_sessions_ += run != first;
  // Per (GPU, workload, metric), each session's logs; a session of several runs counts once, at
  // their mean.
  std::map<std::tuple<std::string, std::string, std::string>, std::map<std::int64_t, std::vector<double>>> logs;
  for (const auto& p : points) {
    if (p.state != status::ok || !p.value || !(*p.value > 0) || p.metric.empty()) continue;
    auto it = run_by_id.find(p.run_id);
    if (it == run_by_id.end() || it->second->gpu.empty()) continue;
    logs[{it->second->gpu, p.workload_id, p.metric}][session.at(p.run_id)].push_back(std::log(*p.value));
  }
  out.source_ = source;
  for (const auto& [key, by_session] : logs) {
    if (by_session.size() < 2) continue;
    auto mean_of = [](const std::vector<double>& x) {
      return std::accumulate(x.begin(), x.end(), 0.0) / static_cast<double>(x.size());
    };
    std::vector<double> v;
    for (const auto& [first, x] : by_session) v.push_back(mean_of(x));
    const double mean = mean_of(v);
    double ss = 0;
    for (double x : v) ss += (x - mean) * (x - mean);
    measured_noise m;
    std::tie(m.gpu, m.id, m.metric) = key;
    m.sessions = static_cast<int>(v.size());
    m.session_df = m.sessions - 1;
    m.session_sd = std::sqrt(ss / m.session_df);
    out.rows_.push_back(std::move(m));
  }
  out.index();
  return out;
}

const measured_noise* noise_prior::find(const std::string& gpu, const std::string& id,
                                        const std::string& metric) const {
  auto it = by_key_.find({gpu, id, metric});
  return it == by_key_.end() ? nullptr : &rows_[it->second];
}

}  // namespace cudabench
