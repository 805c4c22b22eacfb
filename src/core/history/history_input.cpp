// See history_store.hpp (history_input). Reading is apart from the store so that `history add`
// checks every file before it opens, or creates, the database.
#include <fmt/format.h>

#include "core/io/checked_json.hpp"
#include "core/io/sha256.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/history_store.hpp"
#include "cudabench/input_file.hpp"

namespace cudabench {
namespace {

// What the history needs beyond a valid result file.
history_input checked(result_file r, std::string sha, const std::string& source) {
  if (r.started_at.empty())
    throw input_error(fmt::format("{}: started_at is empty: cannot place the run in time", source));
  if (r.workloads.empty()) throw input_error(fmt::format("{}: no workloads: nothing to store", source));
  return {std::move(r), std::move(sha), source};
}

}  // namespace

history_input read_history_input(const std::string& path) {
  result_file r = read_result_file(path);
  // The hash of the bytes just checked, read again in chunks: a result file can be a gigabyte.
  input_file f = input_file::open(path, "result file", max_result_file_bytes);
  sha256 h;
  char buf[1 << 16];
  for (std::size_t n; (n = f.read(buf, sizeof buf)) > 0;) h.update(buf, n);
  return checked(std::move(r), h.hex_digest(), path);
}

history_input history_input_from_bytes(std::string_view bytes, const std::string& source) {
  const auto j = detail::parse_checked_json(std::string(bytes), source, "a result file");
  return checked(result_from_json(j, source), sha256_hex(bytes), source);
}

}  // namespace cudabench
