// Suite parsing: sweep expansion, defaults, ids, settings and every error message (exact text).
#include <string>

#include <gtest/gtest.h>

#include "cudabench/errors.hpp"
#include "cudabench/suite.hpp"
#include "test_suite_catalog.hpp"

using cudabench::input_error;
using cudabench::parse_suite;
using cudabench::suite;

namespace {

suite parse(const std::string& text) { return parse_suite(text, "x.json", cudabench::test::test_catalog()); }

// The message of the input_error that parsing `text` throws ("" if it does not throw).
std::string error_of(const std::string& text) {
  try {
    parse(text);
  } catch (const input_error& e) {
    return e.what();
  }
  return "";
}

// A suite around one workload entry.
std::string with_entry(const std::string& entry) { return R"({"name": "t", "workloads": [)" + entry + "]}"; }

}  // namespace

// ---- expansion, defaults, ids ---------------------------------------------------------------

TEST(Suite, ScalarEntryFillsDefaultsAndBuildsId) {
  const auto s = parse(with_entry(R"({"kind": "matmul", "dtype": "fp32", "m": 4096, "n": 4096, "k": 4096})"));
  ASSERT_EQ(s.workloads.size(), 1u);
  const auto& w = s.workloads[0];
  EXPECT_EQ(w.kind, "matmul");
  EXPECT_EQ(w.id, "matmul/dtype=fp32/m=4096/n=4096/k=4096");  // batch: no default, not given
  EXPECT_EQ(w.params.dump(), R"({"dtype":"fp32","m":4096,"n":4096,"k":4096})");
  EXPECT_FALSE(w.has("batch"));
}

// The built-in kinds' own schemas (src/kinds), not copies: resnet50's defaults fill its id, and
// matmul's dtype has none, so leaving it out is an error.
TEST(Suite, BuiltInKindsFillTheirDefaultsAndRequireTheRest) {
  const auto s = parse(with_entry(R"({"kind": "resnet50", "batch": 8})"));
  ASSERT_EQ(s.workloads.size(), 1u);
  EXPECT_EQ(s.workloads[0].id, "resnet50/dtype=fp16/batch=8/image_size=224/weights=random/tune=false");
  EXPECT_NE(error_of(with_entry(R"({"kind": "matmul", "m": 1, "n": 1, "k": 1})"))
                .find(R"(missing required parameter "dtype" for kind matmul)"),
            std::string::npos);
}

TEST(Suite, ParamsFollowSchemaOrderNotFileOrder) {
  const auto s = parse(with_entry(R"({"k": 3, "batch": 2, "n": 2, "kind": "matmul", "m": 1, "dtype": "fp16"})"));
  EXPECT_EQ(s.workloads[0].id, "matmul/dtype=fp16/m=1/n=2/k=3/batch=2");
  EXPECT_EQ(s.workloads[0].params.dump(), R"({"dtype":"fp16","m":1,"n":2,"k":3,"batch":2})");
}

TEST(Suite, SweepIsCartesianProductFirstSchemaParamSlowest) {
  // Keys deliberately in another order than the schema (dtype, m, n, k).
  const auto s =
      parse(with_entry(R"({"kind": "matmul", "k": [8, 16], "m": 64, "n": [32, 48, 96], "dtype": ["fp16", "bf16"]})"));
  ASSERT_EQ(s.workloads.size(), 12u);
  const char* expected[] = {
      "matmul/dtype=fp16/m=64/n=32/k=8",  "matmul/dtype=fp16/m=64/n=32/k=16", "matmul/dtype=fp16/m=64/n=48/k=8",
      "matmul/dtype=fp16/m=64/n=48/k=16", "matmul/dtype=fp16/m=64/n=96/k=8",  "matmul/dtype=fp16/m=64/n=96/k=16",
      "matmul/dtype=bf16/m=64/n=32/k=8",  "matmul/dtype=bf16/m=64/n=32/k=16", "matmul/dtype=bf16/m=64/n=48/k=8",
      "matmul/dtype=bf16/m=64/n=48/k=16", "matmul/dtype=bf16/m=64/n=96/k=8",  "matmul/dtype=bf16/m=64/n=96/k=16",
  };
  for (std::size_t i = 0; i < 12; ++i) EXPECT_EQ(s.workloads[i].id, expected[i]) << "index " << i;
  EXPECT_EQ(s.workloads[11].params.dump(), R"({"dtype":"bf16","m":64,"n":96,"k":16})");
}

TEST(Suite, SingleElementSweepEqualsScalar) {
  const auto a = parse(with_entry(R"({"kind": "matmul", "dtype": "fp32", "m": [7], "n": 8, "k": 9})"));
  const auto b = parse(with_entry(R"({"kind": "matmul", "dtype": "fp32", "m": 7, "n": 8, "k": 9})"));
  ASSERT_EQ(a.workloads.size(), 1u);
  EXPECT_EQ(a.workloads[0].id, b.workloads[0].id);
  EXPECT_EQ(a.workloads[0].params, b.workloads[0].params);
}

TEST(Suite, EntriesExpandInFileOrder) {
  const auto s = parse(R"({"name": "t", "workloads": [
      {"kind": "memory_bandwidth", "op": ["memset", "d2d"], "bytes": "256MiB"},
      {"kind": "matmul", "dtype": "fp32", "m": 1, "n": 1, "k": 1}]})");
  ASSERT_EQ(s.workloads.size(), 3u);
  EXPECT_EQ(s.workloads[0].id, "memory_bandwidth/op=memset/bytes=268435456");
  EXPECT_EQ(s.workloads[1].id, "memory_bandwidth/op=d2d/bytes=268435456");
  EXPECT_EQ(s.workloads[2].id, "matmul/dtype=fp32/m=1/n=1/k=1");
}

TEST(Suite, ByteSizesAreStoredAsIntegers) {
  const auto s = parse(
      with_entry(R"({"kind": "memory_bandwidth", "op": "d2d", "bytes": ["1GiB", "4GB", "1.5GiB", 4096, "2048"]})"));
  ASSERT_EQ(s.workloads.size(), 5u);
  EXPECT_EQ(s.workloads[0].get_int("bytes"), 1073741824);
  EXPECT_EQ(s.workloads[1].get_int("bytes"), 4000000000);
  EXPECT_EQ(s.workloads[2].get_int("bytes"), 1610612736);
  EXPECT_EQ(s.workloads[3].get_int("bytes"), 4096);
  EXPECT_EQ(s.workloads[4].get_int("bytes"), 2048);
  EXPECT_EQ(s.workloads[2].id, "memory_bandwidth/op=d2d/bytes=1610612736");
  EXPECT_EQ(s.workloads[2].params.dump(), R"({"op":"d2d","bytes":1610612736})");
}

TEST(Suite, IdFormatsNumbersBooleansAndSkipsParamsNotInId) {
  const auto s = parse(with_entry(R"({"kind": "toy", "scale": [0.5, 2, 2.25], "flag": true, "note": "x y"})"));
  ASSERT_EQ(s.workloads.size(), 3u);
  EXPECT_EQ(s.workloads[0].id, "toy/scale=0.5/flag=true/count=2");
  EXPECT_EQ(s.workloads[1].id, "toy/scale=2/flag=true/count=2");  // 2 and 2.0 give one id
  EXPECT_EQ(s.workloads[2].id, "toy/scale=2.25/flag=true/count=2");
  // `number` params are stored as numbers whether written 2 or 2.0; note is kept, not in the id.
  EXPECT_EQ(s.workloads[1].params.dump(), R"({"scale":2.0,"flag":true,"note":"x y","count":2})");
  const auto d = parse(with_entry(R"({"kind": "toy"})"));
  EXPECT_EQ(d.workloads[0].id, "toy/scale=1/flag=false/count=2");
  EXPECT_EQ(d.workloads[0].params.dump(), R"({"scale":1.0,"flag":false,"note":"hello","count":2})");
}

TEST(Suite, TopLevelFieldsSettingsAndSha) {
  const std::string text =
      R"({"name": "t", "description": "d", "defaults": {"repetitions": 7, "warmup": 0, "min_time_ms": 0.5},
    "workloads": [{"kind": "toy"}]})";
  const auto s = parse(text);
  EXPECT_EQ(s.name, "t");
  EXPECT_EQ(s.description, "d");
  EXPECT_EQ(s.source, "x.json");
  EXPECT_EQ(s.defaults.repetitions, 7);
  EXPECT_EQ(s.defaults.warmup, 0);
  EXPECT_DOUBLE_EQ(s.defaults.min_time_ms, 0.5);
  EXPECT_EQ(s.sha256.size(), 64u);
  EXPECT_NE(s.sha256, parse(text + " ").sha256);  // of the bytes, not of the parsed content
}

TEST(Suite, SettingsDefaultTo5Reps2Warmup25Ms) {
  const auto s = parse(with_entry(R"({"kind": "toy"})"));
  EXPECT_EQ(s.defaults.repetitions, 5);
  EXPECT_EQ(s.defaults.warmup, 2);
  EXPECT_DOUBLE_EQ(s.defaults.min_time_ms, 25.0);
  EXPECT_EQ(s.description, "");
  // Partial defaults keep the other values.
  const auto p = parse(R"({"name": "t", "defaults": {"warmup": 4}, "workloads": [{"kind": "toy"}]})");
  EXPECT_EQ(p.defaults.repetitions, 5);
  EXPECT_EQ(p.defaults.warmup, 4);
  EXPECT_DOUBLE_EQ(p.defaults.min_time_ms, 25.0);
}

TEST(Suite, SchemaKeyIsAllowed) {
  EXPECT_EQ(parse(R"({"$schema": "schema/suite.schema.json", "name": "t", "workloads": [{"kind": "toy"}]})").name, "t");
}

// ---- error messages (exact) ------------------------------------------------------------------

TEST(SuiteErrors, UnknownDtypeListsChoices) {
  EXPECT_EQ(
      error_of(R"({"name": "t", "workloads": [{"kind": "toy"}, {"kind": "toy", "count": 3}, {"kind": "toy", "count": 4},
      {"kind": "matmul", "dtype": "fp17", "m": 1, "n": 1, "k": 1}]})"),
      R"(x.json: workloads[3].dtype: unknown dtype "fp17" (expected fp32, tf32, fp16, bf16, fp8))");
}

TEST(SuiteErrors, UnknownKeyForKind) {
  EXPECT_EQ(error_of(with_entry(R"({"kind": "matmul", "dtpye": "fp16", "m": 1, "n": 1, "k": 1})")),
            R"(x.json: workloads[0]: unknown key "dtpye" for kind matmul (expected dtype, m, n, k, batch))");
}

TEST(SuiteErrors, UnknownKindListsKnownKinds) {
  EXPECT_EQ(
      error_of(R"({"name": "t", "workloads": [{"kind": "toy"}, {"kind": "matmull"}]})"),
      R"(x.json: workloads[1].kind: unknown kind "matmull" (known: matmul, memory_bandwidth, llm_decode, resnet50, transformer_memory, train_step, toy, ruled))");
}

TEST(SuiteErrors, UnknownKindWithEmptyCatalog) {
  try {
    parse_suite(with_entry(R"({"kind": "matmul"})"), "x.json", {});
    FAIL() << "no error";
  } catch (const input_error& e) {
    EXPECT_STREQ(e.what(), R"(x.json: workloads[0].kind: unknown kind "matmul" (known: none))");
  }
}

TEST(SuiteErrors, MissingOrNonStringKind) {
  EXPECT_EQ(
      error_of(with_entry(R"({"m": 1})")),
      R"(x.json: workloads[0]: missing required key "kind" (known: matmul, memory_bandwidth, llm_decode, resnet50, transformer_memory, train_step, toy, ruled))");
  EXPECT_EQ(error_of(with_entry(R"({"kind": 3})")), "x.json: workloads[0].kind: expected a string, got integer 3");
}

TEST(SuiteErrors, WrongTypes) {
  EXPECT_EQ(error_of(with_entry(R"({"kind": "matmul", "dtype": "fp32", "m": "big", "n": 1, "k": 1})")),
            R"(x.json: workloads[0].m: expected an integer, got string "big")");
  EXPECT_EQ(error_of(with_entry(R"({"kind": "matmul", "dtype": "fp32", "m": 4096.0, "n": 1, "k": 1})")),
            "x.json: workloads[0].m: expected an integer, got number 4096.0");
  EXPECT_EQ(error_of(with_entry(R"({"kind": "matmul", "dtype": "fp32", "m": "4096", "n": 1, "k": 1})")),
            R"(x.json: workloads[0].m: expected an integer, got string "4096")");
  EXPECT_EQ(error_of(with_entry(R"({"kind": "matmul", "dtype": "fp32", "m": 1, "n": null, "k": 1})")),
            "x.json: workloads[0].n: expected an integer, got null");
  EXPECT_EQ(error_of(with_entry(R"({"kind": "matmul", "dtype": 16, "m": 1, "n": 1, "k": 1})")),
            "x.json: workloads[0].dtype: expected a string, got integer 16");
  EXPECT_EQ(error_of(with_entry(R"({"kind": "toy", "flag": "yes"})")),
            R"(x.json: workloads[0].flag: expected a boolean, got string "yes")");
  EXPECT_EQ(error_of(with_entry(R"({"kind": "toy", "scale": "1"})")),
            R"(x.json: workloads[0].scale: expected a number, got string "1")");
  EXPECT_EQ(error_of(with_entry(R"({"kind": "toy", "scale": {"a": 1}})")),
            "x.json: workloads[0].scale: expected a number, got an object");
  EXPECT_EQ(
      error_of(with_entry(R"({"kind": "memory_bandwidth", "op": "d2d", "bytes": 1.5})")),
      R"(x.json: workloads[0].bytes: expected a byte size (an integer or a string such as "512MiB"), got number 1.5)");
}

TEST(SuiteErrors, OutOfRange) {
  EXPECT_EQ(error_of(with_entry(R"({"kind": "matmul", "dtype": "fp32", "m": -5, "n": 1, "k": 1})")),
            "x.json: workloads[0].m: -5 is below the minimum 1");
  EXPECT_EQ(error_of(with_entry(R"({"kind": "matmul", "dtype": "fp32", "m": 1, "n": 0, "k": 1})")),
            "x.json: workloads[0].n: 0 is below the minimum 1");
  EXPECT_EQ(error_of(with_entry(R"({"kind": "toy", "count": 9})")),
            "x.json: workloads[0].count: 9 is above the maximum 8");
  EXPECT_EQ(error_of(with_entry(R"({"kind": "toy", "scale": 10.5})")),
            "x.json: workloads[0].scale: 10.5 is above the maximum 10");
  EXPECT_EQ(error_of(with_entry(R"({"kind": "toy", "scale": -0.25})")),
            "x.json: workloads[0].scale: -0.25 is below the minimum 0");
  EXPECT_EQ(error_of(with_entry(R"({"kind": "memory_bandwidth", "op": "d2d", "bytes": "0MiB"})")),
            R"(x.json: workloads[0].bytes: "0MiB" (0 bytes) is below the minimum 1024)");
  EXPECT_EQ(error_of(with_entry(R"({"kind": "toy", "count": 18446744073709551615})")),
            "x.json: workloads[0].count: 18446744073709551615 is above the maximum 9223372036854775807");
  EXPECT_EQ(error_of(with_entry(R"({"kind": "memory_bandwidth", "op": "d2d", "bytes": -1})")),
            "x.json: workloads[0].bytes: -1 is negative (expected a byte size)");
}

TEST(SuiteErrors, BadByteSizeString) {
  EXPECT_EQ(
      error_of(with_entry(R"({"kind": "memory_bandwidth", "op": "d2d", "bytes": "1 GB/s"})")),
      R"(x.json: workloads[0].bytes: invalid byte size "1 GB/s" (unknown unit "GB/s"; expected an integer with an optional unit B, KB, MB, GB, TB, KiB, MiB, GiB or TiB, e.g. "512MiB", "1.5GiB", "4GB"))");
}

TEST(SuiteErrors, EmptySweep) {
  EXPECT_EQ(error_of(with_entry(R"({"kind": "matmul", "dtype": [], "m": 1, "n": 1, "k": 1})")),
            "x.json: workloads[0].dtype: empty sweep (an array needs at least one value)");
}

TEST(SuiteErrors, SweepElementPathHasIndex) {
  EXPECT_EQ(error_of(with_entry(R"({"kind": "matmul", "dtype": ["fp32", "fp16", "fp17"], "m": 1, "n": 1, "k": 1})")),
            R"(x.json: workloads[0].dtype[2]: unknown dtype "fp17" (expected fp32, tf32, fp16, bf16, fp8))");
  EXPECT_EQ(error_of(with_entry(R"({"kind": "matmul", "dtype": "fp32", "m": [64, [128]], "n": 1, "k": 1})")),
            "x.json: workloads[0].m[1]: expected an integer, got an array");
}

TEST(SuiteErrors, MissingRequiredParameter) {
  EXPECT_EQ(error_of(with_entry(R"({"kind": "matmul", "dtype": "fp32", "m": 1, "k": 1})")),
            R"(x.json: workloads[0]: missing required parameter "n" for kind matmul (expected an integer))");
}

TEST(SuiteErrors, DuplicateIdsNameBothEntries) {
  EXPECT_EQ(
      error_of(R"({"name": "t", "workloads": [
      {"kind": "matmul", "dtype": ["fp16", "bf16"], "m": 64, "n": 64, "k": 64},
      {"kind": "toy"},
      {"kind": "matmul", "dtype": "bf16", "m": 64, "n": 64, "k": 64}]})"),
      R"(x.json: workloads[2]: duplicate id "matmul/dtype=bf16/m=64/n=64/k=64" (workloads[0] already expands to it))");
  EXPECT_EQ(
      error_of(with_entry(R"({"kind": "matmul", "dtype": "fp32", "m": [64, 64], "n": 64, "k": 64})")),
      R"(x.json: workloads[0]: duplicate id "matmul/dtype=fp32/m=64/n=64/k=64" (the entry expands to it more than once))");
  // A param that is not part of the id cannot tell two workloads apart either.
  EXPECT_EQ(
      error_of(with_entry(R"({"kind": "toy", "note": ["a", "b"]})")),
      R"(x.json: workloads[0]: duplicate id "toy/scale=1/flag=false/count=2" (the entry expands to it more than once))");
}

TEST(SuiteErrors, MalformedJsonNamesLineAndColumn) {
  EXPECT_EQ(error_of("{\"name\": \"t\",\n \"workloads\": [\n {\"kind\" \"toy\"}]}"),
            "x.json: invalid JSON: parse error at line 3, column 14: syntax error while parsing object "
            "separator - unexpected string literal; expected ':'");
  EXPECT_EQ(error_of(" \n"), R"(x.json: empty file (expected a JSON object with "name" and "workloads"))");
}

TEST(SuiteErrors, NumberBeyondDoubleNamesItsPath) {
  const std::string beyond = ": number 1e400 is out of range (a finite double is at most about 1.8e308)";
  EXPECT_EQ(error_of(with_entry(R"({"kind": "matmul", "dtype": "fp32", "m": 1e400, "n": 1, "k": 1})")),
            "x.json: workloads[0].m" + beyond);
  EXPECT_EQ(error_of(with_entry(R"({"kind": "matmul", "dtype": "fp32", "m": [1, 2, 1e400], "n": 1, "k": 1})")),
            "x.json: workloads[0].m[2]" + beyond);
  EXPECT_EQ(error_of(with_entry(R"({"kind": "memory_bandwidth", "op": "d2d", "bytes": 1e400})")),
            "x.json: workloads[0].bytes" + beyond);
  EXPECT_EQ(error_of(R"({"name": "t", "defaults": {"repetitions": 1e400}, "workloads": []})"),
            "x.json: defaults.repetitions" + beyond);
  EXPECT_EQ(error_of(R"({"name": "t", "defaults": {"min_time_ms": -1e400}, "workloads": []})"),
            "x.json: defaults.min_time_ms: number -1e400 is out of range (a finite double is at most about 1.8e308)");
}

TEST(SuiteErrors, NestingDeeperThan64LevelsIsRefused) {
  const std::string deep = R"({"name": "t", "workloads": )" + std::string(100, '[') + std::string(100, ']') + "}";
  const std::string e = error_of(deep);
  EXPECT_EQ(e.rfind("x.json: workloads[0][0]", 0), 0u) << e;
  EXPECT_NE(e.find(": nested deeper than 64 levels of arrays and objects"), std::string::npos) << e;
}

TEST(SuiteErrors, DuplicateJsonKeys) {
  EXPECT_EQ(error_of(R"({"name": "a", "name": "b", "workloads": [{"kind": "toy"}]})"),
            R"(x.json: duplicate key "name")");
  EXPECT_EQ(error_of(R"({"name": "a", "workloads": [{"kind": "toy"}, {"kind": "toy", "count": 1, "count": 3}]})"),
            R"(x.json: workloads[1]: duplicate key "count")");
  EXPECT_EQ(error_of(R"({"name": "a", "defaults": {"warmup": 1, "warmup": 2}, "workloads": [{"kind": "toy"}]})"),
            R"(x.json: defaults: duplicate key "warmup")");
}

TEST(SuiteErrors, TopLevel) {
  EXPECT_EQ(error_of("[1, 2]"), "x.json: expected a JSON object at the top level, got an array");
  EXPECT_EQ(error_of(R"({"workloads": [{"kind": "toy"}]})"),
            R"(x.json: missing required key "name" (expected a string))");
  EXPECT_EQ(error_of(R"({"name": 5, "workloads": [{"kind": "toy"}]})"),
            "x.json: name: expected a string, got integer 5");
  EXPECT_EQ(error_of(R"({"name": "", "workloads": [{"kind": "toy"}]})"), "x.json: name: expected a non-empty string");
  EXPECT_EQ(error_of(R"({"name": "t", "description": 1, "workloads": [{"kind": "toy"}]})"),
            "x.json: description: expected a string, got integer 1");
  EXPECT_EQ(error_of(R"({"name": "t", "workload": []})"),
            R"(x.json: unknown key "workload" (expected name, description, defaults, workloads, $schema))");
  EXPECT_EQ(error_of(R"({"name": "t"})"),
            R"(x.json: missing required key "workloads" (expected a non-empty array of workload entries))");
  EXPECT_EQ(error_of(R"({"name": "t", "workloads": {}})"), "x.json: workloads: expected an array, got an object");
  EXPECT_EQ(error_of(R"({"name": "t", "workloads": []})"),
            "x.json: workloads: empty (a suite needs at least one workload)");
  EXPECT_EQ(error_of(R"({"name": "t", "workloads": ["matmul"]})"),
            R"(x.json: workloads[0]: expected an object, got string "matmul")");
}

TEST(SuiteErrors, Defaults) {
  const auto with_defaults = [](const std::string& d) {
    return R"({"name": "t", "defaults": )" + d + R"(, "workloads": [{"kind": "toy"}]})";
  };
  EXPECT_EQ(error_of(with_defaults("[]")), "x.json: defaults: expected an object, got an array");
  EXPECT_EQ(error_of(with_defaults(R"({"reps": 3})")),
            R"(x.json: defaults: unknown key "reps" (expected repetitions, warmup, min_time_ms))");
  EXPECT_EQ(error_of(with_defaults(R"({"repetitions": 0})")), "x.json: defaults.repetitions: 0 is below the minimum 1");
  EXPECT_EQ(error_of(with_defaults(R"({"repetitions": 2.5})")),
            "x.json: defaults.repetitions: expected an integer, got number 2.5");
  EXPECT_EQ(error_of(with_defaults(R"({"warmup": -1})")), "x.json: defaults.warmup: -1 is below the minimum 0");
  EXPECT_EQ(error_of(with_defaults(R"({"min_time_ms": -0.5})")),
            "x.json: defaults.min_time_ms: -0.5 is below the minimum 0");
  EXPECT_EQ(error_of(with_defaults(R"({"min_time_ms": "25ms"})")),
            R"(x.json: defaults.min_time_ms: expected a number, got string "25ms")");
  // The command line's ranges (--reps 1..1000, --warmup 0..1000, --min-time-ms 0..1e6).
  EXPECT_EQ(error_of(with_defaults(R"({"repetitions": 1000000000})")),
            "x.json: defaults.repetitions: 1000000000 is above the maximum 1000");
  EXPECT_EQ(error_of(with_defaults(R"({"warmup": 1001})")), "x.json: defaults.warmup: 1001 is above the maximum 1000");
  EXPECT_EQ(error_of(with_defaults(R"({"min_time_ms": 1e7})")),
            "x.json: defaults.min_time_ms: 10000000 is above the maximum 1000000");
  EXPECT_EQ(error_of(with_defaults(R"({"repetitions": 1000, "warmup": 1000, "min_time_ms": 1e6})")), "");
}

// ---- how many workloads a suite may expand to ---------------------------------------------

namespace {
std::string axis(int n) {
  std::string s = "[";
  for (int i = 1; i <= n; ++i) s += (i > 1 ? "," : "") + std::to_string(i);
  return s + "]";
}
std::string limited_error(const std::string& text, std::uint64_t max) {
  try {
    cudabench::suite_limits l;
    l.max_workloads = max;
    parse_suite(text, "x.json", cudabench::test::test_catalog(), l);
  } catch (const input_error& e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(SuiteLimits, ASweepIsCountedBeforeItIsBuilt) {
  // 10^10 workloads from a few hundred bytes: refused at once, naming the axes and the count.
  const std::string huge = with_entry(R"({"kind": "matmul", "dtype": "fp32", "m": )" + axis(100) + R"(, "n": )" +
                                      axis(100) + R"(, "k": )" + axis(100) + R"(, "batch": )" + axis(10000) + "}");
  EXPECT_EQ(
      error_of(huge),
      "x.json: workloads[0]: expands to 10000000000 workloads (m 100 × n 100 × k 100 × batch 10000), more than the "
      "limit of 100000 (narrow the sweep, or raise the limit with --max-workloads)");
  // Past 2^64: the count saturates instead of wrapping around to something small.
  std::string entry = R"({"kind": "matmul", "dtype": ["fp32","tf32","fp16","bf16","fp8"], "m": )" + axis(70000) +
                      R"(, "n": )" + axis(70000) + R"(, "k": )" + axis(70000) + R"(, "batch": )" + axis(70000) + "}";
  EXPECT_EQ(error_of(with_entry(entry)).find("expands to more than 18446744073709551615 workloads (dtype 5 × m 70000"),
            std::string("x.json: workloads[0]: ").size());
}

TEST(SuiteLimits, TheLimitCountsEveryEntryAndCanBeRaised) {
  const std::string two = R"({"name": "t", "workloads": [{"kind": "matmul", "dtype": "fp32", "m": )" + axis(60) +
                          R"(, "n": 1, "k": 1},
                             {"kind": "matmul", "dtype": "fp32", "m": 1, "n": )" +
                          axis(50) + R"(, "k": 2}]})";
  EXPECT_EQ(limited_error(two, 100),
            "x.json: workloads[1]: the suite expands to 110 workloads with this entry (50: n 50), more than the limit "
            "of 100 (narrow the sweeps, or raise the limit with --max-workloads)");
  EXPECT_EQ(limited_error(two, 110), "");
  EXPECT_EQ(limited_error(two, 59).find("x.json: workloads[0]: expands to 60 workloads (m 60)"), 0u);
  EXPECT_EQ(cudabench::suite_limits{}.max_workloads, 100000u);
}

TEST(SuiteLimits, ErrorsInEarlierEntriesStillComeFirst) {
  const std::string text = R"({"name": "t", "workloads": [{"kind": "toy", "count": 99},
                              {"kind": "matmul", "dtype": "fp32", "m": )" +
                           axis(1000) + R"(, "n": )" + axis(1000) + R"(, "k": 1}]})";
  EXPECT_EQ(error_of(text), "x.json: workloads[0].count: 99 is above the maximum 8");
}

TEST(SuiteErrors, FirstProblemInFileOrderWins) {
  // Entry 0 is fine, entry 1 has two problems: its unknown key is reported before the bad value.
  EXPECT_EQ(error_of(R"({"name": "t", "workloads": [{"kind": "toy"}, {"kind": "toy", "count": 99, "colour": 1}]})"),
            R"(x.json: workloads[1]: unknown key "colour" for kind toy (expected scale, flag, note, count))");
}
