// Checking a kind's rules (kind_schema.hpp, kind_rule) against expanded workloads, and how a rule
// reads in `list --kinds`. Host-only: rules that name files are checked on this machine's files,
// and the LLM context rule reads a model's config (presets or config.json), never a GPU.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "cudabench/kind_schema.hpp"
#include "cudabench/suite.hpp"

namespace cudabench {

// One suite's checks share what they learn about files and models: a sweep of 10^5 workloads
// over one weights file opens it once.
class rule_checker {
 public:
  // Throws input_error "<source>: <entry_path>.<param>: <what> (workload <id>)" for the first rule
  // of `schema` that `spec` breaks.
  void check(const kind_schema& schema, const workload_spec& spec, const std::string& source,
             const std::string& entry_path);

 private:
  std::optional<std::string> file_problem(const kind_rule& r, const std::string& path);
  std::optional<std::string> directory_problem(const kind_rule& r, const std::string& path);
  // (rule, path) -> its problem, if any: two rules may ask different things of one path.
  std::map<std::pair<const kind_rule*, std::string>, std::optional<std::string>> files_, directories_;
  std::map<std::string, std::optional<int>> context_;  // model -> max positions
};

// The rule as one line of `list --kinds`: "image_size is a multiple of 32",
// "when weights is checkpoint: model is a directory holding model.safetensors or ...".
std::string describe_rule(const kind_rule& r);

}  // namespace cudabench
