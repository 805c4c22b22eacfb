// The GPU library's factories (src/workloads/registry.cpp) against the host-only catalog of kinds
// (src/kinds/catalog.cpp): the same kinds in the same order, so every kind `validate` accepts,
// `run` can make, and every kind `run` can make has its schema, row names and noise
// (tests/unit/test_kind_catalog.cpp checks those). Links the GPU library but calls no CUDA, so it
// is labelled `unit` and CI runs it.
#include <atomic>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudabench/gpu/registry.hpp"
#include "cudabench/gpu/runner.hpp"
#include "cudabench/kind_description.hpp"

namespace cudabench {
namespace {

TEST(Registry, FactoriesMatchTheCatalog) {
  const std::vector<kind_description>& described = kind_descriptions();
  ASSERT_EQ(registry().size(), described.size());
  for (std::size_t i = 0; i < described.size(); ++i) {
    EXPECT_EQ(registry()[i].kind, described[i].schema.kind) << "index " << i;
    EXPECT_TRUE(static_cast<bool>(registry()[i].make)) << registry()[i].kind;
  }
}

TEST(Registry, LookupsAgree) {
  for (const kind_entry& k : registry()) {
    EXPECT_EQ(find_kind(k.kind), &k);
    EXPECT_EQ(find_factory(k.kind), &k.make);
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
