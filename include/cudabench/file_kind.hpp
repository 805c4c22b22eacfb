// Which of cudabench's JSON files a file is: a result, a fleet, or a comparison (compare --format
// json, ab's compare.json). They look alike (fleets even have "schema_version" and "workloads"),
// so a fleet given to `report` or `history add` used to fail deep inside with a field error
// ("workloads[0]: missing required field \"status\""); readers say what the file is instead, and
// the commands that accept several kinds (compare, fleet collect) pick the reader by it. Host-only.
#pragma once
#include <string>

namespace cudabench {

enum class json_file_kind { result, fleet, comparison };

// From the first 4 KiB of the file, opened through input_file (a FIFO, device, directory, empty or
// oversized file is an input_error naming it). Fleet and comparison files start with the key that
// says so ("format": "cudabench-fleet", "compare_schema_version"); anything else is taken for a
// result file, whose reader then says what is wrong with it.
json_file_kind sniff_json_file_kind(const std::string& path);

// "a fleet file (...), not a result file: ..." for a file of kind `k` where a result file was
// expected; what to give instead.
std::string not_a_result_file_text(json_file_kind k);

}  // namespace cudabench
