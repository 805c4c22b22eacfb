// See dtype.hpp.
#include "cudabench/dtype.hpp"

#include "cudabench/errors.hpp"

namespace cudabench {

dtype parse_dtype(const std::string& name, const char* who, std::initializer_list<dtype> allowed) {
  std::string expected;
  for (dtype d : allowed) {
    if (name == dtype_name(d)) return d;
    expected += (expected.empty() ? "" : ", ") + std::string(dtype_name(d));
  }
  throw input_error(std::string(who) + ": unknown dtype \"" + name + "\" (expected " + expected + ")");
}

}  // namespace cudabench
