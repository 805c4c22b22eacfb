// `ab --resume`: continue an interleaved A/B in the directory where an earlier `ab` stopped (a time
// limit, Ctrl-C, a machine taken away), so its finished rounds are kept instead of run again.
#pragma once
#include <string>
#include <vector>

namespace cudabench::cli {

struct ab_resume_state {
  std::string session;  // the earlier ab's session id, kept: the resumed rounds extend that session
  int done_rounds = 0;  // leading rounds every side finished (its process exited 0)
};

// Reads DIR/A.json ... and DIR/rounds/<side>-<round>.json. input_error naming what does not match
// when DIR holds no ab, an ab of other builds (the commands, in order) or of another suite (its name
// or, when both are known, its file's sha256), so a resumed comparison never mixes two experiments. A round counts as
// done when each side's file reads as a result and has every id in `workload_ids`; the first that does not is run
// again.
ab_resume_state read_ab_resume_state(const std::string& dir, const std::vector<std::string>& builds,
                                     const std::string& suite_name, const std::string& suite_sha256);

}  // namespace cudabench::cli
