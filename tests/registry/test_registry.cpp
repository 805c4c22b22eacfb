// The GPU library's factories (src/workloads/registry.cpp) against the host-only catalog of kinds
// (src/kinds/catalog.cpp): the same kinds in the same order, so every kind `validate` accepts,
// `run` can make, and every kind `run` can make has its description, row names and a factory
// (tests/unit/test_kind_catalog.cpp checks the catalog's entries in full, noise included). Links the GPU library but
// calls no CUDA, so it is labelled `unit` and CI runs it.
#include <atomic>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudabench/gpu/registry.hpp"
#include "cudabench/gpu/runner.hpp"
#include "cudabench/kind_description.hpp"
#include "cudabench/row_names.hpp"

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

// Every kind `run` can make is fully described on the host side: its description (schema with a
// description and parameters), row names of its own parameters, and a factory.
TEST(Registry, EveryRegisteredKindHasDescriptionRowNamesAndFactory) {
  for (const kind_entry& k : registry()) {
    const kind_description* d = find_kind_description(k.kind);
    ASSERT_NE(d, nullptr) << k.kind << " is registered but not in src/kinds/catalog.cpp";
    EXPECT_FALSE(d->schema.description.empty()) << k.kind;
    EXPECT_FALSE(d->schema.params.empty()) << k.kind;
    EXPECT_EQ(d->row_name.kind, k.kind) << k.kind;
    EXPECT_FALSE(d->row_name.parts.empty()) << k.kind << " has no row-name parts";
    EXPECT_EQ(find_row_name(k.kind), &d->row_name) << k.kind;
    EXPECT_TRUE(static_cast<bool>(k.make)) << k.kind << " has no factory";
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
