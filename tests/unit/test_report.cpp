// Every output format against expected text (tests/data/expected/compare_*). The inputs are the
// hand-made files in tests/data/results (written by make_results.py). To regenerate after an
// intended change: CUDABENCH_UPDATE_GOLDEN=1 build/tests/cudabench_unit_tests --gtest_filter='Report*'
// and review the diff.
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "compare_fixtures.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/report.hpp"
#include "test_support.hpp"

using namespace cudabench;

namespace {

comparison compare_files(const std::vector<std::string>& names, compare_options opt = {}) {
  std::vector<result_file> files;
  for (const auto& n : names) files.push_back(read_result_file(test::data_path("results/" + n)));
  return compare_results(files, names, opt);  // sources as bare names: goldens do not depend on paths
}

std::string render(const std::string& format, const comparison& c, report_options opt = {}) {
  std::ostringstream out;
  make_reporter(format, opt)->report(c, out);
  return out.str();
}

const char* extension(const std::string& format) {
  if (format == "table") return "txt";
  if (format == "markdown") return "md";
  return format == "csv" ? "csv" : "json";
}

}  // namespace

TEST(Report, TwoWayEveryFormat) {
  const auto c = compare_files({"cu121.json", "cu124.json"});
  for (const std::string f : {"table", "markdown", "csv", "json"})
    test::expect_golden(std::string("compare_2way.") + extension(f), render(f, c));
}

TEST(Report, ThreeWayEveryFormat) {
  const auto c = compare_files({"cu121.json", "cu124.json", "cu126.json"});
  for (const std::string f : {"table", "markdown", "csv", "json"})
    test::expect_golden(std::string("compare_3way.") + extension(f), render(f, c));
}

TEST(Report, DifferentGpuIsALoudWarning) {
  compare_options opt;
  opt.metrics = {"time_ms", "tflops"};
  const auto c = compare_files({"cu121.json", "cu121_a100.json"}, opt);
  test::expect_golden("compare_gpu_warning.txt", render("table", c));
  test::expect_golden("compare_gpu_warning.md", render("markdown", c));
}

TEST(Report, MarkdownHeaderIsTheSeedStyle) {
  const std::string md = render("markdown", compare_files({"cu121.json", "cu124.json"}));
  EXPECT_NE(md.find("| workload | CUDA 12.1 | CUDA 12.4 | change |\n"), std::string::npos);
  EXPECT_NE(md.find("| OOM |"), std::string::npos);
  EXPECT_NE(md.find("**-10.0% [-10.6, -9.4] regressed** (mde 0.93%) |"), std::string::npos) << md;
}

TEST(Report, ColourOnlyWhenAsked) {
  const auto c = compare_files({"cu121.json", "cu124.json"});
  EXPECT_EQ(render("table", c).find('\033'), std::string::npos);
  const std::string coloured = render("table", c, report_options{true});
  EXPECT_NE(coloured.find("\033[32mimproved"), std::string::npos);
  EXPECT_NE(coloured.find("\033[1;31mregressed"), std::string::npos);
  for (const std::string f : {"markdown", "csv", "json"})
    EXPECT_EQ(render(f, c, report_options{true}).find('\033'), std::string::npos) << f;
}

TEST(Report, ZeroBaselineAndNumberFormats) {
  auto zero = test::single_metric_workload("errs", "k", "errors", "count", better::lower, {0, 0, 0, 0, 0});
  auto some = test::single_metric_workload("errs", "k", "errors", "count", better::lower, {1, 1, 1, 1, 1});
  auto big =
      test::single_metric_workload("big", "k", "rate", "items/s", better::higher, {123456.7, 123456.7, 123456.7});
  auto tiny =
      test::single_metric_workload("tiny", "k", "t", "s", better::lower, {0.000012345, 0.000012345, 0.000012345});
  const auto c = compare_results({test::make_file("A", {zero, big, tiny}), test::make_file("B", {some, big, tiny})},
                                 {"a.json", "b.json"}, {});
  const std::string md = render("markdown", c);
  EXPECT_NE(md.find("| errs · errors (count) | 0 | 1.000 | **n/a regressed** |"), std::string::npos) << md;
  EXPECT_NE(md.find("| big · rate (items/s) | 123457 | 123457 | 0.0% unchanged |"), std::string::npos) << md;
  EXPECT_NE(md.find("| tiny · t (s) | 1.234e-05 | 1.234e-05 | 0.0% unchanged |"), std::string::npos) << md;
  const std::string csv = render("csv", c);
  EXPECT_NE(csv.find("errs,errs · errors (count),errors,count,lower,A,B,ok,ok,0,1,,,,,,regressed,1,1,false,false,"
                     "baseline median is 0: no percentage change,,\n"),
            std::string::npos)
      << csv;
  const auto j = nlohmann::json::parse(render("json", c));
  EXPECT_TRUE(j["rows"][0]["changes"][0]["change_pct"].is_null());
  EXPECT_EQ(j["rows"][0]["changes"][0]["verdict"], "regressed");
  EXPECT_EQ(j["regression"], true);
}

// README: an "n/a" change comes with a note. table and markdown print it under the table, one line
// per such row; a comparison with no n/a change prints none.
TEST(Report, NaChangeIsExplainedUnderTheTable) {
  auto zero = test::single_metric_workload("errs", "k", "errors", "count", better::lower, {0, 0, 0, 0, 0});
  auto some = test::single_metric_workload("errs", "k", "errors", "count", better::lower, {1, 1, 1, 1, 1});
  auto tiny = test::single_metric_workload("far", "k", "rate", "items/s", better::higher, {1e-290, 1e-290, 1e-290});
  auto huge = test::single_metric_workload("far", "k", "rate", "items/s", better::higher, {1e29, 1e29, 1e29});
  const auto c = compare_results({test::make_file("A", {zero, tiny}), test::make_file("B", {some, huge})},
                                 {"a.json", "b.json"}, {});
  const std::string md = render("markdown", c);
  EXPECT_NE(md.find("| far · rate (items/s) | 1.000e-290 | 1.000e+29 | n/a improved |"), std::string::npos) << md;
  EXPECT_NE(md.find("- n/a: errs · errors (count): baseline median is 0: no percentage change\n"
                    "- n/a: far · rate (items/s): the medians differ by more than a percentage can express\n\n"),
            std::string::npos)
      << md;
  const std::string table = render("table", c);
  EXPECT_NE(table.find("n/a: errs · errors (count): baseline median is 0: no percentage change\n"
                       "n/a: far · rate (items/s): the medians differ by more than a percentage can express\n"),
            std::string::npos)
      << table;

  const auto plain = compare_files({"cu121.json", "cu124.json"});
  EXPECT_EQ(render("markdown", plain).find("n/a"), std::string::npos);
  EXPECT_EQ(render("table", plain).find("n/a"), std::string::npos);
}

TEST(Report, CsvQuotesFieldsThatNeedIt) {
  auto a = test::matmul_workload("fp16", 64, 64, 64, {1, 1, 1}, status::error, "bad, \"very\" bad");
  auto b = test::matmul_workload("fp16", 64, 64, 64, {1, 1, 1});
  const std::string csv =
      render("csv", compare_results({test::make_file("A", {a}), test::make_file("B", {b})}, {"a", "b"}, {}));
  EXPECT_NE(csv.find(",failed,0,0,false,false,\"baseline: error (bad, \"\"very\"\" bad)\",,\n"), std::string::npos)
      << csv;
}

TEST(Report, UnknownFormatIsInputError) { EXPECT_THROW(make_reporter("xml"), input_error); }
