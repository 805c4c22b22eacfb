// See row_noise.hpp.
#include "cudabench/row_noise.hpp"

#include <algorithm>
#include <cmath>

namespace cudabench {

noise_evidence default_noise_evidence() { return {&noise_prior::committed(), nullptr}; }

noise_model row_noise(const noise_evidence& ev, const std::string& gpu, const std::string& id, const std::string& kind,
                      const std::string& metric, const nlohmann::ordered_json& params) {
  noise_model out = noise_floor(kind, metric, params);
  const measured_noise* committed = ev.committed ? ev.committed->find(gpu, id, metric) : nullptr;
  const measured_noise* history = ev.history ? ev.history->find(gpu, id, metric) : nullptr;
  if (committed && committed->round_sd) {
    out.round_sd = *committed->round_sd;
    out.round_df = committed->round_df;
    out.round_source = committed->round_latest_level ? "committed, latest level" : "committed";
  }
  // Pooled variance of the sources that measured the row's sessions: sum of df * s^2 over sum of df.
  double ss = 0, df = 0;
  int sessions = 0;
  std::string source;
  for (const auto& [m, name] : {std::pair{history, "history"}, std::pair{committed, "committed"}}) {
    if (!m || !m->session_sd) continue;
    ss += m->session_df * *m->session_sd * *m->session_sd;
    df += m->session_df;
    sessions += m->sessions;
    source += (source.empty() ? "" : "+") + std::string(name);
  }
  if (df > 0) {
    out.session_sd = std::sqrt(ss / df);
    out.session_df = df;
    out.sessions = sessions;
    out.session_source = source;
  }
  out.round_sd = std::max(out.round_sd, resolution_sd);
  out.session_sd = std::max(out.session_sd, resolution_sd);
  return out;
}

}  // namespace cudabench
