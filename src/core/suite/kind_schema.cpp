// See kind_schema.hpp.
#include "cudabench/kind_schema.hpp"

namespace cudabench {

const char* type_name(param_type t) {
  switch (t) {
    case param_type::integer: return "integer";
    case param_type::number: return "number";
    case param_type::string: return "string";
    case param_type::boolean: return "boolean";
    case param_type::bytes: return "bytes";
  }
  return "?";
}

}  // namespace cudabench
