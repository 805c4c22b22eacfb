// See env_number.hpp.
#include "cudabench/env_number.hpp"

#include <cstdlib>

#include <fmt/format.h>

#include "cudabench/errors.hpp"

namespace cudabench {

double env_number(const char* name, double fallback, double lo, double hi, const std::string& why) {
  const char* env = std::getenv(name);
  if (env == nullptr || *env == '\0') return fallback;
  char* rest = nullptr;
  const double v = std::strtod(env, &rest);
  if (*rest != '\0' || !(v >= lo && v <= hi)) throw input_error(fmt::format("{}={}: {}", name, env, why));
  return v;
}

}  // namespace cudabench
