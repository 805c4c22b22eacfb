// See file_kind.hpp.
#include "cudabench/file_kind.hpp"

#include <fmt/format.h>

#include "cudabench/fleet.hpp"
#include "cudabench/input_file.hpp"

namespace cudabench {

json_file_kind sniff_json_file_kind(const std::string& path) {
  input_file f = input_file::open(path, "result or fleet file", max_result_file_bytes);
  std::string head(4096, '\0');
  std::size_t got = 0;
  while (got < head.size()) {
    const std::size_t n = f.read(head.data() + got, head.size() - got);
    if (n == 0) break;
    got += n;
  }
  head.resize(got);
  if (head.find("\"format\"") != std::string::npos &&
      head.find(fmt::format("\"{}\"", fleet_format)) != std::string::npos)
    return json_file_kind::fleet;
  if (head.find("\"compare_schema_version\"") != std::string::npos) return json_file_kind::comparison;
  return json_file_kind::result;
}

std::string not_a_result_file_text(json_file_kind k) {
  switch (k) {
    case json_file_kind::fleet:
      return "this is a fleet file (written by `fleet collect` or `run --devices`), not a result file: `compare` "
             "reads fleets; give this command the per-GPU result files (HOST-gpu-N.json)";
    case json_file_kind::comparison:
      return "this is a comparison (`compare --format json`, ab's compare.json), not a result file: give this "
             "command the result files that were compared";
    case json_file_kind::result: break;
  }
  return "a result file";
}

}  // namespace cudabench
