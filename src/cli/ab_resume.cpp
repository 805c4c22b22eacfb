// See ab_resume.hpp.
#include "cli/ab_resume.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "cli/ab_devices.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/input_file.hpp"
#include "cudabench/result.hpp"
#include "cudabench/text_safety.hpp"

namespace cudabench::cli {
namespace {

// Round `round` (1-based) of a side is done when its process exited 0 (the side's merged file logs
// every round's exit code) and its file reads: a process cut short exits otherwise.
bool round_done(const result_file& merged, const std::string& file, int round) {
  bool exited_0 = false;
  for (const auto& e : merged.round_log)
    if (e.value("round", -1) == round - 1) exited_0 = e.value("exit_code", -1) == 0;  // the log counts from 0
  if (!exited_0) return false;
  try {
    (void)read_result_file(file);
    return true;
  } catch (const input_error&) {
    return false;
  }
}

}  // namespace

nlohmann::ordered_json ab_manifest(const std::vector<std::string>& builds, const std::string& suite_name,
                                   const std::string& suite_sha256, const nlohmann::ordered_json& options) {
  return {{"ab_manifest_version", 1},
          {"builds", builds},
          {"suite", {{"name", suite_name}, {"sha256", suite_sha256}}},
          {"options", options}};
}

ab_resume_state read_ab_resume_state(const std::string& dir, const nlohmann::ordered_json& manifest) {
  const std::string path = dir + "/ab.json", first = dir + "/A.json";
  std::error_code ec;
  if (!std::filesystem::exists(path, ec) || !std::filesystem::exists(first, ec))
    throw input_error(fmt::format("--resume: {} holds no ab to continue ({} or {} is missing; run without --resume)",
                                  terminal_text(dir), terminal_text(path), terminal_text(first)));
  nlohmann::ordered_json earlier;
  try {
    earlier = nlohmann::ordered_json::parse(input_file::open(path, "ab manifest", 1 << 20).read_all());
  } catch (const nlohmann::json::exception&) {
    throw input_error(fmt::format("--resume: {} is not an ab manifest (not JSON)", terminal_text(path)));
  }
  if (!earlier.is_object())
    throw input_error(fmt::format("--resume: {} is not an ab manifest (not a JSON object)", terminal_text(path)));
  for (const char* key : {"builds", "suite", "options"}) {
    const auto& was = earlier.contains(key) ? earlier[key] : nlohmann::ordered_json();
    if (was != manifest[key])
      throw input_error(
          fmt::format("--resume: {} was an ab of other {}: {} then, {} now; give the same, or start a "
                      "new ab",
                      terminal_text(dir), key, terminal_text(was.dump()), terminal_text(manifest[key].dump())));
  }
  const result_file a = read_result_file(first);
  if (!a.interleave.contains("session"))
    throw input_error(
        fmt::format("--resume: {} is not a side of an ab (no interleaved session in it)", terminal_text(first)));
  ab_resume_state st;
  st.session = a.interleave["session"].get<std::string>();
  std::vector<result_file> merged{a};
  for (std::size_t i = 1; i < manifest["builds"].size(); ++i) {
    const std::string f = fmt::format("{}/{}.json", dir, side_name(i));
    if (!std::filesystem::exists(f, ec)) return st;  // that side never finished a round
    merged.push_back(read_result_file(f));
  }
  for (int r = 1;; ++r) {
    for (std::size_t i = 0; i < merged.size(); ++i)
      if (!round_done(merged[i], round_file(dir, i, r), r)) return st;
    st.done_rounds = r;
  }
}

}  // namespace cudabench::cli
