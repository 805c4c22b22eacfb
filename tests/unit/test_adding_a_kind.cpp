// README "Adding a kind", checked: a kind's host-side half is a schema (parameters, rules) plus a
// row-name entry, and everything host-side reads only those. A test-only `noop` kind, described
// the way the built-in kinds are (src/kinds/<kind>.cpp), goes through suite parsing and validation,
// the rule text `list --kinds` prints, and the row names compare, reports, fleets and the history
// use. (Its factory, the registry line, is the GPU library's: tests/unit/test_kind_catalog.cpp
// checks the built-in kinds' descriptions, tests/registry/test_registry.cpp their factories.)
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudabench/errors.hpp"
#include "cudabench/kind_rules.hpp"
#include "cudabench/kind_schema.hpp"
#include "cudabench/row_names.hpp"
#include "cudabench/suite.hpp"

namespace cudabench {
namespace {

kind_schema noop_schema() {
  kind_schema s;
  s.kind = "noop";
  s.description = "does nothing, for the tests";
  param_def mode = make_param("mode", param_type::string, "what not to do");
  mode.required = true;
  mode.choices = {"idle", "sleep"};
  s.params.push_back(mode);
  param_def bytes = make_param("bytes", param_type::bytes, "how much not to touch", "4KiB");
  bytes.min = 1;
  s.params.push_back(bytes);
  param_def batch = make_param("batch", param_type::integer, "how many at once", 1);
  batch.min = 1;
  s.params.push_back(batch);
  kind_rule even;
  even.type = rule_type::multiple_of;
  even.param = "batch";
  even.n = 2;
  even.when_param = "mode";
  even.when_value = "sleep";
  s.rules = {even};
  return s;
}

const kind_row_name noop_names{"noop",
                               {row_part("mode"), row_part_bytes("bytes"), row_part("batch", "batch ", "", "1")}};

suite parse(const std::string& workloads) {
  return parse_suite(R"({"name": "t", "workloads": [)" + workloads + "]}", "t.json", {noop_schema()});
}

std::string error_of(const std::string& workloads) {
  try {
    parse(workloads);
  } catch (const input_error& e) {
    return e.what();
  }
  return "";
}

TEST(AddingAKind, SuiteParsingExpandsAndValidates) {
  const suite s = parse(R"({"kind": "noop", "mode": ["idle", "sleep"], "batch": [2, 4]})");
  ASSERT_EQ(s.workloads.size(), 4u);
  EXPECT_EQ(s.workloads[0].id, "noop/mode=idle/bytes=4096/batch=2");
  EXPECT_EQ(s.workloads[3].id, "noop/mode=sleep/bytes=4096/batch=4");
  EXPECT_NE(error_of(R"({"kind": "noop", "mode": "run"})").find("mode"), std::string::npos);
  EXPECT_NE(error_of(R"({"kind": "noop"})").find("mode"), std::string::npos);
  EXPECT_NE(error_of(R"({"kind": "noop", "mode": "sleep", "batch": 3})").find("3 is not a multiple of 2"),
            std::string::npos);
  EXPECT_EQ(error_of(R"({"kind": "noop", "mode": "idle", "batch": 3})"), "");
  EXPECT_NE(error_of(R"({"kind": "nope", "mode": "idle"})").find("noop"), std::string::npos);  // names the known kinds
}

TEST(AddingAKind, RulesReadAsListKindsPrintsThem) {
  EXPECT_EQ(describe_rule(noop_schema().rules[0]), "when mode is sleep: batch is a multiple of 2");
}

TEST(AddingAKind, RowNamesComeFromTheEntry) {
  const suite s = parse(R"({"kind": "noop", "mode": "idle", "bytes": "1MiB", "batch": [1, 4]})");
  EXPECT_EQ(describe_workload(noop_names, s.workloads[0].params), "noop idle 1MiB");
  EXPECT_EQ(readable_name(s.workloads[1].id, &noop_names, s.workloads[1].params, "time_ms", "ms", {"ms"}),
            "noop idle 1MiB batch 4 (ms)");
  EXPECT_EQ(readable_name(s.workloads[1].id, &noop_names, s.workloads[1].params, "time_ms", "ms", {"ms", "ms"}),
            "noop idle 1MiB batch 4 · time_ms (ms)");
  // Missing parameters leave their part out; without an entry the row is named by its id.
  EXPECT_EQ(describe_workload(noop_names, nlohmann::ordered_json::object()), "noop");
  EXPECT_EQ(readable_name(s.workloads[1].id, nullptr, s.workloads[1].params, "time_ms", "ms", {"ms"}),
            "noop/mode=idle/bytes=1048576/batch=4 · time_ms (ms)");
}

}  // namespace
}  // namespace cudabench
