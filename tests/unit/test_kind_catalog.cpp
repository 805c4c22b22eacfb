// The catalog of built-in kinds (src/kinds/catalog.cpp) is complete: every kind has its schema,
// a row-name entry that names only its own parameters, and a noise fallback, once each. Host-only,
// so CI runs it; tests/registry/test_registry.cpp checks the GPU library's factories against the
// same list.
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudabench/kind_description.hpp"
#include "cudabench/noise_floor.hpp"
#include "cudabench/row_names.hpp"

namespace cudabench {
namespace {

TEST(KindCatalog, ListsTheBuiltInKindsOnceInListOrder) {
  std::vector<std::string> kinds;
  for (const auto& k : kind_descriptions()) kinds.push_back(k.schema.kind);
  EXPECT_EQ(kinds, (std::vector<std::string>{"matmul", "memory_bandwidth", "llm_decode", "resnet50",
                                             "transformer_memory", "train_step"}));
  EXPECT_EQ(std::set<std::string>(kinds.begin(), kinds.end()).size(), kinds.size());
  const kind_catalog schemas = builtin_kinds();
  ASSERT_EQ(schemas.size(), kinds.size());
  for (std::size_t i = 0; i < kinds.size(); ++i) {
    EXPECT_EQ(schemas[i].kind, kinds[i]);
    EXPECT_EQ(find_kind_description(kinds[i]), &kind_descriptions()[i]);
  }
  EXPECT_EQ(find_kind_description("noop"), nullptr);
}

TEST(KindCatalog, EveryKindIsFullyDescribed) {
  for (const kind_description& k : kind_descriptions()) {
    const std::string& kind = k.schema.kind;
    EXPECT_FALSE(k.schema.description.empty()) << kind;
    EXPECT_FALSE(k.schema.params.empty()) << kind;
    EXPECT_EQ(k.row_name.kind, kind) << "the row-name entry of " << kind << " names another kind";
    EXPECT_FALSE(k.row_name.parts.empty()) << kind << " has no row-name parts";
    EXPECT_EQ(find_row_name(kind), &k.row_name) << kind;
    for (const name_part& part : k.row_name.parts)
      for (const std::string& key : part.keys)
        EXPECT_NE(k.schema.find(key), nullptr) << kind << "'s row name uses " << key << ", not a parameter";
    EXPECT_NE(k.noise, nullptr) << kind << " has no noise fallback";
  }
}

// compare's fallback for a built-in kind is the kind's own entry; an unknown kind gets the
// cautious default.
TEST(KindCatalog, NoiseFloorReadsTheKindsEntry) {
  const nlohmann::ordered_json params = {{"op", "h2d_pageable"}, {"bytes", 1 << 20}};
  const noise_model m = noise_floor("memory_bandwidth", "gbps", params);
  EXPECT_DOUBLE_EQ(m.round_sd, 0.31);
  EXPECT_DOUBLE_EQ(m.session_sd, 0.23);
  const noise_model unknown = noise_floor("noop", "time_ms", params);
  EXPECT_DOUBLE_EQ(unknown.round_sd, noise_model{}.round_sd);
  EXPECT_DOUBLE_EQ(unknown.session_sd, noise_model{}.session_sd);
}

}  // namespace
}  // namespace cudabench
