// The result file readers on arbitrary bytes, three ways: read_result_file (the fast streaming
// reader, falling back to the strict one), the strict streaming reader alone, and nlohmann's DOM
// through result_from_json. They must agree: the same model when the file reads (compared as
// JSON), the same input_error message when it does not; only input_error may be thrown.
// Known, intended differences: a second "workloads" key and nesting deeper than 64 levels are
// errors for the streaming readers (the DOM reader keeps the last key and any depth), and a
// number beyond double's range is reported by the streaming readers with its path while
// nlohmann's DOM parser throws out_of_range.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/result/result_stream.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/input_file.hpp"
#include "cudabench/result.hpp"
#include "memory_file.hpp"

namespace {

struct outcome {
  std::optional<std::string> json;   // the model, when it read
  std::optional<std::string> error;  // the input_error, when it did not
};

template <class F>
outcome run(F&& read) {
  outcome o;
  try {
    o.json = cudabench::to_json(read()).dump();
  } catch (const cudabench::input_error& e) {
    o.error = e.what();
  }
  return o;
}

void expect_same(const outcome& a, const outcome& b, const char* what) {
  if (a.json != b.json || a.error != b.error) {
    std::fprintf(stderr, "readers disagree (%s):\n  %s\n  %s\n", what, a.json ? a.json->c_str() : a.error->c_str(),
                 b.json ? b.json->c_str() : b.error->c_str());
    std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static cudabench::fuzz::memory_file file;
  const std::string& path = file.write(data, size);

  const outcome full = run([&] { return cudabench::read_result_file(path); });
  const outcome strict = run([&] {
    cudabench::input_file f = cudabench::input_file::open(path, "result file", cudabench::max_result_file_bytes);
    return cudabench::detail::read_result_strict(f);
  });
  expect_same(full, strict, "read_result_file vs strict");

  nlohmann::ordered_json dom;
  try {
    dom = nlohmann::ordered_json::parse(data, data + size);
  } catch (const nlohmann::json::exception&) {
    if (!full.error) std::abort();  // the DOM parser refused what the streaming reader accepted
    return 0;
  }
  if (full.error && (full.error->find("workloads: the key appears twice") != std::string::npos ||
                     full.error->find("nested deeper than") != std::string::npos))
    return 0;
  const outcome from_dom = run([&] { return cudabench::result_from_json(dom, path); });
  // An empty file is refused before parsing ("empty file"); the DOM parser never sees it.
  if (size == 0) return 0;
  expect_same(full, from_dom, "streaming vs DOM");
  return 0;
}
