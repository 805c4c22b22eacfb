// See ab_resume.hpp.
#include "cli/ab_resume.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "cudabench/errors.hpp"
#include "cudabench/result.hpp"
#include "cudabench/text_safety.hpp"

namespace cudabench::cli {
namespace {

std::string side_name(std::size_t i) { return std::string(1, static_cast<char>('A' + i)); }

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

ab_resume_state read_ab_resume_state(const std::string& dir, const std::vector<std::string>& builds,
                                     const std::string& suite_name, const std::string& suite_sha256) {
  const std::string first = dir + "/A.json";
  std::error_code ec;
  if (!std::filesystem::exists(first, ec))
    throw input_error(fmt::format("--resume: {} not found: {} holds no ab to continue (run without --resume)",
                                  terminal_text(first), terminal_text(dir)));
  const result_file a = read_result_file(first);
  const auto& sides = a.interleave.value("sides", nlohmann::ordered_json::array());
  if (!a.interleave.contains("session") || !sides.is_array())
    throw input_error(
        fmt::format("--resume: {} is not a side of an ab (no interleaved session in it)", terminal_text(first)));
  std::vector<std::string> earlier;
  for (const auto& s : sides) earlier.push_back(s.value("command", std::string()));
  if (earlier != builds) {
    std::string was;
    for (std::size_t i = 0; i < earlier.size(); ++i)
      was += fmt::format("{}{} = \"{}\"", i ? ", " : "", side_name(i), terminal_text(earlier[i]));
    throw input_error(fmt::format("--resume: {} was an ab of other builds ({}); give the same builds in the same order",
                                  terminal_text(dir), was));
  }
  const std::string earlier_suite = a.suite.value("name", std::string());
  if (earlier_suite != suite_name)
    throw input_error(fmt::format("--resume: {} was an ab of suite \"{}\", not \"{}\"", terminal_text(dir),
                                  terminal_text(earlier_suite), terminal_text(suite_name)));
  const std::string earlier_sha = a.suite.value("sha256", std::string());
  if (!earlier_sha.empty() && !suite_sha256.empty() && earlier_sha != suite_sha256)
    throw input_error(
        fmt::format("--resume: suite \"{}\" has changed since {} was started (its file's sha256 "
                    "differs); start a new ab",
                    terminal_text(suite_name), terminal_text(dir)));
  ab_resume_state st;
  st.session = a.interleave["session"].get<std::string>();
  std::vector<result_file> merged{a};
  for (std::size_t i = 1; i < builds.size(); ++i) {
    const std::string f = fmt::format("{}/{}.json", dir, side_name(i));
    if (!std::filesystem::exists(f, ec)) return st;  // that side never finished a round
    merged.push_back(read_result_file(f));
  }
  for (int r = 1;; ++r) {
    for (std::size_t i = 0; i < builds.size(); ++i)
      if (!round_done(merged[i], fmt::format("{}/rounds/{}-{}.json", dir, side_name(i), r), r)) return st;
    st.done_rounds = r;
  }
}

}  // namespace cudabench::cli
