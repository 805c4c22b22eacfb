// Result files: round trip, golden text, strict reading with file + JSON path in every error.
#include <cstdio>
#include <fstream>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudabench/errors.hpp"
#include "cudabench/result.hpp"
#include "test_support.hpp"

using namespace cudabench;
using cudabench::test::data_path;
using cudabench::test::read_text;
using cudabench::test::temp_path;

namespace {

result_file sample_result() {
  result_file r;
  r.tool = {{"name", "cudabench"},
            {"version", "0.1.0"},
            {"git_commit", "0123456789ab"},
            {"argv", {"cudabench", "--suite", "quick"}}};
  r.build = {{"cuda_toolkit", "12.4.131"}, {"cuda_architectures", "90"}, {"compiler", "GNU 12.2.0"},
             {"build_type", "Release"},    {"cublas_headers", "12.4.5"}, {"cudnn_headers", "9.1.0"}};
  r.environment = {{"label", "CUDA 12.4"},
                   {"driver_version", "580.159.04"},
                   {"cuda_runtime", "12.4"},
                   {"device", {{"index", 0}, {"name", "NVIDIA H200"}, {"sm_count", 132}}}};
  r.suite = {{"name", "quick"}, {"source", "configs/quick.json"}, {"sha256", "ab"}};
  r.settings = {{"repetitions", 5}, {"warmup", 2}, {"min_time_ms", 25}};
  r.started_at = "2026-12-02T12:00:00Z";
  r.finished_at = "2026-12-02T12:00:30Z";

  workload_result mm;
  mm.id = "matmul/dtype=fp16/m=4096/n=4096/k=4096";
  mm.kind = "matmul";
  mm.params = {{"dtype", "fp16"}, {"m", 4096}, {"n", 4096}, {"k", 4096}};
  mm.validation = validation_record{true, 0.0012, 0.01};
  // Headline first, deliberately not in alphabetical order.
  mm.metrics.emplace_back("tflops", make_metric("TFLOP/s", better::higher, {654.5, 651.25, 648.3, 657.6, 654.5}));
  mm.metrics.emplace_back("time_ms", make_metric("ms", better::lower, {0.21, 0.211, 0.212, 0.209, 0.21}));
  mm.clocks.sm_mhz = {1980, 1980, 1965, 1980, 1980};
  mm.clocks.throttle_reasons = {"sw_power_cap"};
  mm.clocks.throttled = true;
  mm.peak_memory_bytes = 100663296;
  r.workloads.push_back(mm);

  workload_result oom;
  oom.id = "transformer_memory/dtype=fp32/batch=128/seq_len=512";
  oom.kind = "transformer_memory";
  oom.params = {{"dtype", "fp32"}, {"batch", 128}, {"seq_len", 512}};
  oom.state = status::oom;
  oom.message = "allocation of 24.00 GiB would exceed --mem-limit 24.00 GiB";
  oom.oom_requested_bytes = 25769803776ull;
  r.workloads.push_back(oom);
  return r;
}

nlohmann::ordered_json parse(const std::string& text) { return nlohmann::ordered_json::parse(text); }

// The error message of reading `j` (source "x.json"), or "" if it reads.
std::string read_error(const nlohmann::ordered_json& j) {
  try {
    result_from_json(j, "x.json");
  } catch (const input_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Result, StatusStrings) {
  for (status s :
       {status::ok, status::failed_validation, status::oom, status::error, status::unsupported, status::skipped})
    EXPECT_EQ(status_from_string(to_string(s)), s);
  EXPECT_STREQ(to_string(status::failed_validation), "failed_validation");
  try {
    status_from_string("crashed");
    FAIL();
  } catch (const input_error& e) {
    EXPECT_STREQ(e.what(),
                 "unknown status \"crashed\" (expected ok, failed_validation, oom, error, unsupported, skipped)");
  }
}

TEST(Result, MakeMetricSummarizesAndRejectsBadSamples) {
  const metric m = make_metric("ms", better::lower, {3, 1, 2, 5, 4});
  EXPECT_DOUBLE_EQ(m.median, 3);
  EXPECT_DOUBLE_EQ(m.mean, 3);
  EXPECT_DOUBLE_EQ(m.min, 1);
  EXPECT_DOUBLE_EQ(m.max, 5);
  EXPECT_EQ(m.unit, "ms");
  EXPECT_THROW(make_metric("ms", better::lower, {}), std::invalid_argument);
  EXPECT_THROW(make_metric("ms", better::lower, {1.0, std::numeric_limits<double>::quiet_NaN()}),
               std::invalid_argument);
}

TEST(Result, LabelDefaultsToUnlabelled) {
  result_file r;
  EXPECT_EQ(r.label(), "unlabelled");
  r.environment["label"] = "cuDNN 9.14.0";
  EXPECT_EQ(r.label(), "cuDNN 9.14.0");
}

TEST(Result, WriteMatchesGoldenAndReadsBackEqual) {
  const result_file r = sample_result();
  const std::string path = temp_path("roundtrip.json");
  write_result_file(r, path);
  const std::string text = read_text(path);
  cudabench::test::expect_golden("result_roundtrip.json", text);
  EXPECT_FALSE(std::ifstream(path + ".tmp").good()) << "the temp file is renamed into place";

  const result_file back = read_result_file(path);
  EXPECT_EQ(to_json(back), to_json(r));  // every field, in order
  ASSERT_EQ(back.workloads.size(), 2u);
  EXPECT_EQ(back.workloads[0].metrics[0].first, "tflops");  // headline keeps its place
  EXPECT_EQ(back.workloads[0].peak_memory_bytes, 100663296u);
  EXPECT_FALSE(back.workloads[0].oom_requested_bytes.has_value());
  EXPECT_TRUE(back.workloads[0].clocks.throttled);
  EXPECT_EQ(back.workloads[1].state, status::oom);
  EXPECT_EQ(back.workloads[1].oom_requested_bytes, 25769803776u);
  EXPECT_FALSE(back.workloads[1].validation.has_value());
  EXPECT_EQ(back.label(), "CUDA 12.4");
  std::remove(path.c_str());
}

TEST(Result, MemoryObjectOnlyWhenSet) {
  result_file r = sample_result();
  r.workloads[0].peak_memory_bytes.reset();
  const auto j = to_json(r);
  EXPECT_FALSE(j["workloads"][0].contains("memory"));
  EXPECT_EQ(j["workloads"][1]["memory"].dump(), R"({"oom_requested_bytes":25769803776})");
}

TEST(Result, EnergyAbsentOnlyWhenSetAndReadBack) {
  result_file r = sample_result();
  EXPECT_FALSE(to_json(r)["workloads"][0]["clocks"].contains("energy_absent"));  // files as before
  r.workloads[0].clocks.energy_absent = "repetition 0 lasted 25 ms, shorter than the 1000 ms an energy sample needs";
  const auto j = to_json(r);
  EXPECT_EQ(j["workloads"][0]["clocks"]["energy_absent"], r.workloads[0].clocks.energy_absent);
  EXPECT_EQ(result_from_json(j, "x.json").workloads[0].clocks.energy_absent, r.workloads[0].clocks.energy_absent);
}

TEST(Result, WriteToMissingDirectoryIsInputError) {
  EXPECT_THROW(write_result_file(sample_result(), "/nonexistent-dir/x.json"), input_error);
}

TEST(Result, AcceptsAnyMinorVersionAndIgnoresUnknownKeys) {
  auto j = to_json(sample_result());
  j["schema_version"] = "1.7";
  j["new_top_level"] = 1;
  j["workloads"][0]["new_field"] = "x";
  EXPECT_EQ(read_error(j), "");
  EXPECT_EQ(read_result_file(data_path("results/schema_v1_3.json")).schema_version, "1.3");
}

TEST(Result, StrictErrorsNameFileAndPath) {
  const auto good = to_json(sample_result());
  struct error_case {
    const char* what;
    std::function<void(nlohmann::ordered_json&)> mutate;
    std::string expected;
  };
  const std::vector<error_case> cases = {
      {"major", [](auto& j) { j["schema_version"] = "2.0"; },
       "x.json: schema_version: result schema version 2.0 is not supported (this cudabench reads 1.x); read it with "
       "the cudabench version that wrote it"},
      {"version type", [](auto& j) { j["schema_version"] = 1.0; },
       "x.json: schema_version: expected a string, got number"},
      {"no version", [](auto& j) { j.erase("schema_version"); }, "x.json: missing required field \"schema_version\""},
      {"bad version", [](auto& j) { j["schema_version"] = "one"; },
       "x.json: schema_version: malformed version \"one\" (expected MAJOR.MINOR, e.g. \"1.0\")"},
      {"no workloads", [](auto& j) { j.erase("workloads"); }, "x.json: missing required field \"workloads\""},
      {"workloads type", [](auto& j) { j["workloads"] = "x"; }, "x.json: workloads: expected an array, got string"},
      {"sample type", [](auto& j) { j["workloads"][0]["metrics"]["time_ms"]["samples"][1] = "0.2"; },
       "x.json: workloads[0].metrics.time_ms.samples[1]: expected a number, got string"},
      {"nan sample", [](auto& j) { j["workloads"][0]["metrics"]["tflops"]["samples"][4] = nullptr; },
       "x.json: workloads[0].metrics.tflops.samples[4]: expected a number, got null (a NaN or infinite value is "
       "written as null)"},
      {"empty samples",
       [](auto& j) { j["workloads"][0]["metrics"]["time_ms"]["samples"] = nlohmann::ordered_json::array(); },
       "x.json: workloads[0].metrics.time_ms.samples: expected at least one sample for a workload with status ok"},
      {"no metrics", [](auto& j) { j["workloads"][0]["metrics"] = nlohmann::ordered_json::object(); },
       "x.json: workloads[0].metrics: expected at least one metric for a workload with status ok"},
      {"better", [](auto& j) { j["workloads"][0]["metrics"]["time_ms"]["better"] = "smaller"; },
       "x.json: workloads[0].metrics.time_ms.better: unknown direction \"smaller\" (expected lower, higher)"},
      {"unit missing", [](auto& j) { j["workloads"][0]["metrics"]["time_ms"].erase("unit"); },
       "x.json: workloads[0].metrics.time_ms: missing required field \"unit\""},
      {"status", [](auto& j) { j["workloads"][1]["status"] = "exploded"; },
       "x.json: workloads[1].status: unknown status \"exploded\" (expected ok, failed_validation, oom, error, "
       "unsupported, skipped)"},
      {"id type", [](auto& j) { j["workloads"][1]["id"] = 7; },
       "x.json: workloads[1].id: expected a string, got number"},
      {"duplicate id", [](auto& j) { j["workloads"][1]["id"] = j["workloads"][0]["id"]; },
       "x.json: workloads[1].id: duplicate workload id \"matmul/dtype=fp16/m=4096/n=4096/k=4096\" (also workloads[0])"},
      {"validation", [](auto& j) { j["workloads"][0]["validation"]["passed"] = "yes"; },
       "x.json: workloads[0].validation.passed: expected a boolean, got string"},
      {"clocks", [](auto& j) { j["workloads"][0]["clocks"]["throttle_reasons"][0] = 3; },
       "x.json: workloads[0].clocks.throttle_reasons[0]: expected a string, got number"},
      {"memory", [](auto& j) { j["workloads"][0]["memory"]["peak_bytes"] = -5; },
       "x.json: workloads[0].memory.peak_bytes: expected a non-negative integer, got number"},
      {"environment", [](auto& j) { j["environment"] = nlohmann::ordered_json::array(); },
       "x.json: environment: expected an object, got array"},
      {"label", [](auto& j) { j["environment"]["label"] = 12.4; },
       "x.json: environment.label: expected a string, got number"},
      {"top level", [](auto& j) { j = nlohmann::ordered_json::array(); },
       "x.json: expected a result object at the top level, got array"},
  };
  for (const auto& c : cases) {
    auto j = good;
    c.mutate(j);
    EXPECT_EQ(read_error(j), c.expected) << c.what;
  }
}

TEST(Result, FailedWorkloadMayHaveNoMetrics) {
  auto j = to_json(sample_result());
  j["workloads"][1].erase("metrics");
  EXPECT_EQ(read_error(j), "");
}

TEST(Result, FilesOnDiskErrors) {
  auto message = [](const std::string& rel) -> std::string {
    try {
      read_result_file(data_path(rel));
    } catch (const input_error& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(message("results/bad_sample_type.json"),
            data_path("results/bad_sample_type.json") +
                ": workloads[2].metrics.gbps.samples[1]: expected a number, got string");
  EXPECT_NE(message("results/malformed.json").find("malformed.json: malformed JSON:"), std::string::npos);
  EXPECT_EQ(message("results/missing.json"),
            data_path("results/missing.json") + ": no such file (expected a result file)");
}

TEST(Result, PlainJsonOverloadReads) {
  const nlohmann::json j = nlohmann::json::parse(to_json(sample_result()).dump());
  const result_file r = result_from_json(j, "plain.json");
  EXPECT_EQ(r.workloads.size(), 2u);
}

TEST(Result, UtcNowLooksLikeIso8601) {
  const std::string t = utc_now_iso8601();
  ASSERT_EQ(t.size(), 20u);
  EXPECT_EQ(t[4], '-');
  EXPECT_EQ(t[10], 'T');
  EXPECT_EQ(t[19], 'Z');
}
