// Sets (or, with nullptr, unsets) one environment variable for a test's scope and restores what was
// there: the tuners' settings (CUDABENCH_TUNER_*) are read from the environment on every call.
#pragma once
#include <cstdlib>
#include <string>

namespace cudabench::test {

class scoped_env {
 public:
  scoped_env(const char* name, const char* value) : name_(name) {
    if (const char* was = std::getenv(name)) {
      saved_ = was;
      had_ = true;
    }
    if (value) ::setenv(name, value, 1);
    else ::unsetenv(name);
  }
  ~scoped_env() {
    if (had_) ::setenv(name_.c_str(), saved_.c_str(), 1);
    else ::unsetenv(name_.c_str());
  }
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;

 private:
  std::string name_, saved_;
  bool had_ = false;
};

}  // namespace cudabench::test
