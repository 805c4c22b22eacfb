// Synthetic nightly result files for the history tests: cu121.json (six workloads, five rounds)
// with its own time, commit and a level factor on every sample, so a series can be given a step.
#pragma once
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "test_support.hpp"

namespace cudabench::test {

// Writes `path`: night `night` (2026-11-01 + night days, 02:30 UTC), git commit `commit`, every
// time sample multiplied by `factor` (rates divided, so "slower" is consistent), and each
// metric's samples nudged by `wobble` (a fraction, e.g. 0.004) so nights differ like real ones.
inline void write_night(const std::string& path, int night, const std::string& commit, double factor,
                        double wobble = 0.0) {
  auto j = nlohmann::ordered_json::parse(read_text(data_path("results/cu121.json")));
  j["started_at"] = fmt::format("2026-11-{:02d}T02:30:00Z", 1 + night);
  j["finished_at"] = fmt::format("2026-11-{:02d}T02:45:00Z", 1 + night);
  j["tool"]["git_commit"] = commit;
  j["environment"]["label"] = "nightly";
  for (auto& w : j["workloads"])
    for (auto& [name, m] : w["metrics"].items()) {
      const bool lower = m["better"] == "lower";
      for (auto& s : m["samples"]) {
        const double v = s.get<double>() * (lower ? factor : 1 / factor) * (1 + wobble);
        s = v;
      }
    }
  write_text(path, j.dump(1));
}

}  // namespace cudabench::test
