// safetensors_file::open on arbitrary bytes (an 8-byte header length, a JSON header, data): it
// either opens, with every tensor's byte range inside the data section and matching its dtype
// and shape, or throws input_error. No other exception, no read outside the mapping, no UB.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "cudabench/errors.hpp"
#include "cudabench/safetensors.hpp"
#include "memory_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static cudabench::fuzz::memory_file file;
  const std::string& path = file.write(data, size);
  try {
    const auto f = cudabench::safetensors_file::open(path);
    for (const auto& t : f->tensors()) {
      if (t.end < t.begin) std::abort();
      const std::size_t es = cudabench::safetensors_dtype_size(t.dtype);
      if (es == 0 || t.bytes() != static_cast<std::uint64_t>(t.numel()) * es) std::abort();
      // Touch the first and last byte: ASan catches a range outside the mapping.
      if (t.bytes() > 0) {
        volatile std::byte first = f->data(t)[0], last = f->data(t)[t.bytes() - 1];
        (void)first;
        (void)last;
      }
      if (f->find(t.name) == nullptr) std::abort();
    }
  } catch (const cudabench::input_error&) {
  }
  return 0;
}
