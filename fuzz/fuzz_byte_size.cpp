// parse_byte_size ("512MiB", "1.5GiB", "4GB", "1024"): any text either parses or throws
// input_error -- no other exception, no UB in its 128-bit arithmetic -- and what parses is
// consistent: the same text with "B" appended parses to the same value when it had no unit.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "cudabench/errors.hpp"
#include "cudabench/suite.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::uint64_t bytes = 0;
  try {
    bytes = cudabench::parse_byte_size(text, "fuzz");
  } catch (const cudabench::input_error&) {
    return 0;
  }
  // Digits (and a fraction) without a unit mean bytes; with "B" appended they mean the same.
  if (text.find_first_not_of("0123456789. ") == std::string::npos) {
    std::uint64_t with_unit = 0;
    try {
      with_unit = cudabench::parse_byte_size(text + "B", "fuzz");
    } catch (const cudabench::input_error&) {
      std::abort();  // parsed without the unit but not with it
    }
    if (with_unit != bytes) std::abort();
  }
  return 0;
}
