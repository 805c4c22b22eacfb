// The registry (src/workloads/registry.cpp) against what the host-only side knows of its kinds:
// each registered kind has a row-name entry (src/core/kind_row_names.cpp) that names only its own
// parameters, and the harness runs what its caller's factory lookup hands it. Needs no GPU.
#include <atomic>
#include <string>

#include <gtest/gtest.h>

#include "cudabench/registry.hpp"
#include "cudabench/row_names.hpp"
#include "cudabench/runner.hpp"

namespace cudabench {
namespace {

TEST(Registry, EveryKindHasRowNamesOfItsOwnParameters) {
  ASSERT_FALSE(registry().empty());
  for (const kind_entry& k : registry()) {
    const kind_row_name* names = find_row_name(k.schema.kind);
    ASSERT_NE(names, nullptr) << k.schema.kind << " has no entry in src/core/kind_row_names.cpp";
    for (const name_part& part : names->parts)
      for (const std::string& key : part.keys)
        EXPECT_NE(k.schema.find(key), nullptr) << k.schema.kind << " has no parameter " << key;
  }
}

TEST(Registry, LookupsAgree) {
  const kind_catalog catalog = registry_catalog();
  ASSERT_EQ(catalog.size(), registry().size());
  for (std::size_t i = 0; i < catalog.size(); ++i) {
    const std::string& kind = registry()[i].schema.kind;
    EXPECT_EQ(catalog[i].kind, kind);
    EXPECT_EQ(find_kind(kind), &registry()[i]);
    EXPECT_EQ(find_factory(kind), &registry()[i].make);
  }
  EXPECT_EQ(find_kind("nope"), nullptr);
  EXPECT_EQ(find_factory("nope"), nullptr);
}

TEST(Registry, HarnessRecordsAKindItsCallerDoesNotKnow) {
  workload_spec spec;
  spec.id = "nope/x=1";
  spec.kind = "nope";
  const std::atomic<bool> stop{false};
  const workload_result r = run_workload(spec, find_factory(spec.kind), runner_options{}, stop);
  EXPECT_EQ(r.state, status::error);
  EXPECT_EQ(r.message, "unknown kind \"nope\"");
  EXPECT_EQ(r.id, spec.id);
}

}  // namespace
}  // namespace cudabench
