// The two streaming readers behind read_result_file (result.hpp). Private to src/core.
#pragma once
#include <optional>

#include "cudabench/input_file.hpp"
#include "cudabench/result.hpp"

namespace cudabench::detail {

// The strict reader, one workload DOM at a time (result_stream.cpp): result_reader's checks and
// messages for any file, and the JSON path of a number beyond double's range.
result_file read_result_strict(input_file& f);

// The fast reader (result_fast.cpp): SAX events straight into the model, no DOM per workload. It
// gives up (nullopt) at the first thing that is not plainly valid -- any error, a repeated key, a
// value of an unexpected type -- and the caller then runs the strict reader, which says what is
// wrong. Whenever it returns a result, it is the one the strict reader would return.
std::optional<result_file> read_result_fast(input_file& f);

}  // namespace cudabench::detail
