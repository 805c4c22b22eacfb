// read_result_file streams the file: a fast reader straight into the model, and the strict
// per-workload reader when the fast one gives up (core/result/result_stream.hpp). These tests check that
// a file reads exactly as its parsed DOM does through result_from_json -- the same model, or the
// same error with file and JSON path -- and the errors only the file reader can meet: numbers
// beyond double's range, truncation, trailing garbage.
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "core/result/result_stream.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/input_file.hpp"
#include "cudabench/result.hpp"
#include "test_support.hpp"

using namespace cudabench;
using cudabench::test::data_path;
using cudabench::test::temp_path;
using cudabench::test::write_text;

namespace {

// The error of `f(path)` for a file holding `text`, or "" when it reads; `path` in the message is
// replaced by "F" so cases read alike.
std::string error_of(const std::string& text, const std::function<void(const std::string&)>& f) {
  const std::string path = temp_path("stream.json");
  write_text(path, text);
  std::string msg;
  try {
    f(path);
  } catch (const input_error& e) {
    msg = e.what();
    for (auto pos = msg.find(path); pos != std::string::npos; pos = msg.find(path)) msg.replace(pos, path.size(), "F");
  }
  std::remove(path.c_str());
  return msg;
}

std::string file_error(const std::string& text) {
  return error_of(text, [](const std::string& p) { read_result_file(p); });
}

std::string dom_error(const nlohmann::ordered_json& j) {
  try {
    result_from_json(j, "F");
  } catch (const input_error& e) {
    return e.what();
  }
  return "";
}

// Both streaming readers on `text` must give the DOM reader's result; the fast one must not give
// up on these valid files (else it is never the one tested).
void expect_readers_agree(const std::string& text, const std::string& what) {
  const std::string path = temp_path("agree.json");
  write_text(path, text);
  input_file f = input_file::open(path, "result file", max_result_file_bytes);
  const std::optional<result_file> fast = detail::read_result_fast(f);
  f.rewind();
  const result_file strict = detail::read_result_strict(f);
  const result_file dom = result_from_json(nlohmann::ordered_json::parse(text), path);
  EXPECT_EQ(to_json(strict), to_json(dom)) << what;
  ASSERT_TRUE(fast.has_value()) << what << ": the fast reader gave up on a valid file";
  EXPECT_EQ(to_json(*fast), to_json(dom)) << what;
  std::remove(path.c_str());
}

nlohmann::ordered_json golden() {
  return nlohmann::ordered_json::parse(cudabench::test::read_text(data_path("results/cu121.json")));
}

}  // namespace

TEST(ResultStream, EveryDataFileReadsAsItsDom) {
  for (const char* name :
       {"cu121.json", "cu124.json", "cu126.json", "cu121_a100.json", "disjoint.json", "schema_v1_3.json"}) {
    const std::string text = cudabench::test::read_text(data_path(std::string("results/") + name));
    expect_readers_agree(text, name);
    expect_readers_agree(nlohmann::ordered_json::parse(text).dump(), std::string(name) + " (compact)");
  }
}

TEST(ResultStream, VariationsTheFastReaderMustGetRight) {
  struct variation {
    const char* what;
    std::function<void(nlohmann::ordered_json&)> mutate;
  };
  const std::vector<variation> cases = {
      {"summary omitted",
       [](auto& j) {
         for (const char* k : {"median", "mean", "stddev", "min", "max"})
           j["workloads"][0]["metrics"]["time_ms"].erase(k);
       }},
      {"unknown keys everywhere",
       [](auto& j) {
         j["workloads"][0]["future"] = {{"a", {1, 2, {{"b", nullptr}}}}};
         j["workloads"][0]["metrics"]["time_ms"]["future"] = nlohmann::ordered_json::array({1, "x"});
         j["workloads"][0]["clocks"]["future"] = {{"x", 1}};
         j["workloads"][0]["validation"]["future"] = true;
         j["future_top"] = {1, 2, 3};
       }},
      {"cycles, energy and why energy is absent",
       [](auto& j) {
         auto& w = j["workloads"][0];
         w["metrics"]["cycles"] = {{"unit", "Mcycles"}, {"better", "lower"}, {"samples", {0.42, 0.43}}};
         w["metrics"]["energy_j"] = {{"unit", "J"}, {"better", "lower"}, {"samples", {0.11, 0.12}}};
         w["clocks"]["energy_absent"] = "the energy counter did not advance in repetition 1";
         j["workloads"][1]["clocks"]["energy_absent"] = "repetition 0 lasted 25 ms";
       }},
      {"keys reordered",
       [](auto& j) {
         auto& w = j["workloads"][0];
         nlohmann::ordered_json r = nlohmann::ordered_json::object();
         for (auto it = w.rbegin(); it != w.rend(); ++it) r[it.key()] = it.value();
         w = r;
       }},
      {"workloads before the version",
       [](auto& j) {
         nlohmann::ordered_json r;
         r["workloads"] = j["workloads"];
         for (auto it = j.begin(); it != j.end(); ++it)
           if (it.key() != "workloads") r[it.key()] = it.value();
         j = r;
       }},
      {"integer samples",
       [](auto& j) {
         j["workloads"][0]["metrics"]["time_ms"]["samples"] = {1, 2, 3, 4, 5};
       }},
      {"failed workload without metrics",
       [](auto& j) {
         j["workloads"][1]["status"] = "error";
         j["workloads"][1].erase("metrics");
       }},
      {"tuning and memory",
       [](auto& j) {
         j["workloads"][0]["tuning"] = {{"algorithm", {{"index", 3}}}, {"b", {1, 2}}};
         j["workloads"][0]["tuning_by_round"] = {{{"round", 0}, {"tuning", {{"a", 1}}}}};
         j["workloads"][0]["memory"] = {{"peak_bytes", 123}, {"oom_requested_bytes", 7}};
       }},
      {"strings with escapes", [](auto& j) { j["workloads"][0]["message"] = "tab\there \"quoted\" \u00e9 \\ /"; }},
  };
  for (const auto& c : cases) {
    auto j = golden();
    c.mutate(j);
    expect_readers_agree(j.dump(2), c.what);
  }
}

TEST(ResultStream, ErrorsAreTheDomReadersWithFileAndPath) {
  struct error_case {
    const char* what;
    std::function<void(nlohmann::ordered_json&)> mutate;
  };
  const std::vector<error_case> cases = {
      {"major", [](auto& j) { j["schema_version"] = "2.0"; }},
      {"no version", [](auto& j) { j.erase("schema_version"); }},
      {"no workloads", [](auto& j) { j.erase("workloads"); }},
      {"workloads type", [](auto& j) { j["workloads"] = "x"; }},
      {"workloads object",
       [](auto& j) {
         j["workloads"] = {{"a", 1}};
       }},
      {"sample type", [](auto& j) { j["workloads"][0]["metrics"]["time_ms"]["samples"][1] = "0.2"; }},
      {"null sample", [](auto& j) { j["workloads"][0]["metrics"]["time_ms"]["samples"][4] = nullptr; }},
      {"empty samples",
       [](auto& j) { j["workloads"][0]["metrics"]["time_ms"]["samples"] = nlohmann::ordered_json::array(); }},
      {"rounds mismatch",
       [](auto& j) {
         j["workloads"][0]["metrics"]["time_ms"]["rounds"] = {0, 1};
       }},
      {"status", [](auto& j) { j["workloads"][1]["status"] = "exploded"; }},
      {"duplicate id", [](auto& j) { j["workloads"][2]["id"] = j["workloads"][0]["id"]; }},
      {"empty id", [](auto& j) { j["workloads"][1]["id"] = ""; }},
      {"params array", [](auto& j) { j["workloads"][0]["params"] = {1}; }},
      {"workload scalar", [](auto& j) { j["workloads"][1] = 5; }},
      {"validation missing field", [](auto& j) { j["workloads"][0]["validation"].erase("tolerance"); }},
      {"top-level error wins over a workload's",
       [](auto& j) {
         j["workloads"][1]["status"] = "exploded";
         j["environment"] = 5;
       }},
      {"first bad workload wins",
       [](auto& j) {
         j["workloads"][3]["status"] = "exploded";
         j["workloads"][1]["id"] = 7;
       }},
      {"top level",
       [](auto& j) {
         j = nlohmann::ordered_json::array({1, 2});
       }},
  };
  for (const auto& c : cases) {
    auto j = golden();
    c.mutate(j);
    const std::string expected = dom_error(j);
    ASSERT_NE(expected, "") << c.what;
    EXPECT_EQ(file_error(j.dump(2)), expected) << c.what;
  }
}

TEST(ResultStream, NumberBeyondDoubleNamesItsPath) {
  auto j = golden();
  std::string text = j.dump();
  const std::string needle = "\"samples\":[0.21";
  const auto pos = text.find(needle);
  ASSERT_NE(pos, std::string::npos);
  text.replace(pos, needle.size(), "\"samples\":[1e400");
  EXPECT_EQ(
      file_error(text),
      "F: workloads[0].metrics.time_ms.samples[0]: number 1e400 is out of range (a finite double is at most about "
      "1.8e308)");
  text = golden().dump();
  text.replace(text.find("\"repetitions\":5"), 15, "\"repetitions\":-1e999");
  EXPECT_EQ(file_error(text),
            "F: settings.repetitions: number -1e999 is out of range (a finite double is at most about 1.8e308)");
}

TEST(ResultStream, SyntaxErrorsSayMalformedWithoutNlohmannsCode) {
  const std::string text = golden().dump(2);
  const std::string truncated = file_error(text.substr(0, text.size() / 2));
  EXPECT_EQ(truncated.rfind("F: malformed JSON: parse error at line ", 0), 0u) << truncated;
  EXPECT_EQ(truncated.find("[json.exception"), std::string::npos) << truncated;
  EXPECT_EQ(file_error(text + "\n{}").rfind("F: malformed JSON: parse error", 0), 0u);
  EXPECT_EQ(file_error("  \n"),
            "F: malformed JSON: parse error at line 2, column 1: syntax error while parsing value - "
            "unexpected end of input; expected '[', '{', or a literal");
}

TEST(ResultStream, RepeatedWorkloadsKeyIsAnError) {
  std::string text = golden().dump();
  text.insert(text.size() - 1, ",\"workloads\":[]");
  EXPECT_EQ(file_error(text), "F: workloads: the key appears twice");
}

TEST(ResultStream, NestingDeeperThan64LevelsIsRefused) {
  auto j = golden();
  nlohmann::ordered_json deep = nlohmann::ordered_json::array();
  for (int i = 0; i < 100; ++i) deep = nlohmann::ordered_json::array({deep});
  j["workloads"][0]["params"]["deep"] = deep;
  const std::string e = file_error(j.dump());
  EXPECT_EQ(e.rfind("F: workloads[0].params.deep[0][0]", 0), 0u) << e;
  EXPECT_NE(e.find(": nested deeper than 64 levels of arrays and objects"), std::string::npos) << e;
}
