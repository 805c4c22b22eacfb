// `ab --resume`: continue an interleaved A/B in the directory where an earlier `ab` stopped (a time
// limit, Ctrl-C, a machine taken away), so its finished rounds are kept instead of run again.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cudabench::cli {

// What makes two ab invocations the same experiment, written to DIR/ab.json when an ab starts:
// the builds (commands, in order), the suite (name, sha256), the filter and every measurement
// option. --resume refuses a directory whose ab.json differs in any of them (rounds, labels and
// output options may change).
nlohmann::ordered_json ab_manifest(const std::vector<std::string>& builds, const std::string& suite_name,
                                   const std::string& suite_sha256, const nlohmann::ordered_json& options);

struct ab_resume_state {
  std::string session;  // the earlier ab's session id, kept: the resumed rounds extend that session
  int done_rounds = 0;  // leading rounds every side finished (its process exited 0)
};

// Reads DIR/ab.json, DIR/A.json ... and DIR/rounds/<side>-<round>.json. input_error naming what
// differs when DIR holds no ab or the ab of another experiment (`manifest`, from ab_manifest), so a
// resumed comparison never mixes two. A round counts as done when each side's process exited 0 (the
// side's merged file logs it) and its round file reads; the first that is not done runs again,
// every side of it.
ab_resume_state read_ab_resume_state(const std::string& dir, const nlohmann::ordered_json& manifest);

}  // namespace cudabench::cli
