// `cudabench run` stdout formats, against exact expected text.
#include <gtest/gtest.h>

#include "cudabench/errors.hpp"
#include "cudabench/run_summary.hpp"

using namespace cudabench;

namespace {
result_file sample_result() {
  result_file r;
  r.environment = {{"label", "CUDA 13.0"}, {"device", {{"name", "NVIDIA H200"}}}};
  workload_result ok;
  ok.id = "matmul/dtype=fp16/m=4096/n=4096/k=4096";
  ok.kind = "matmul";
  ok.metrics.emplace_back("time_ms", make_metric("ms", better::lower, {0.2, 0.25, 0.2, 0.2, 0.2}));
  ok.metrics.emplace_back("tflops", make_metric("TFLOP/s", better::higher, {687.2, 549.8, 687.2, 687.2, 687.2}));
  workload_result oom;
  oom.id = "transformer_memory/batch=128";
  oom.kind = "transformer_memory";
  oom.state = status::oom;
  oom.message = "allocation of 2.00 GiB would exceed --mem-limit 24.00 GiB";
  r.workloads = {ok, oom};
  return r;
}
}  // namespace

// The one formatter, compare's: 4 significant digits.
TEST(RunSummary, FormatValue) {
  EXPECT_EQ(format_value(0.0), "0");
  EXPECT_EQ(format_value(0.2), "0.2000");
  EXPECT_EQ(format_value(1.234), "1.234");
  EXPECT_EQ(format_value(12.34), "12.34");
  EXPECT_EQ(format_value(687.24), "687.2");
  EXPECT_EQ(format_value(4.3e6), "4300000");
  EXPECT_EQ(format_value(1e-4), "1.000e-04");
}

TEST(RunSummary, Markdown) {
  EXPECT_EQ(format_run_summary(sample_result(), summary_format::markdown),
            "**CUDA 13.0** — NVIDIA H200\n\n"
            "| workload | status | metric | median | unit | spread | min | max |\n"
            "|---|---|---|---:|---|---:|---:|---:|\n"
            "| matmul/dtype=fp16/m=4096/n=4096/k=4096 | ok | time_ms | 0.2000 | ms | ±11.2% | 0.2000 | 0.2500 |\n"
            "| matmul/dtype=fp16/m=4096/n=4096/k=4096 | ok | tflops | 687.2 | TFLOP/s | ±8.9% | 549.8 | 687.2 |\n"
            "| transformer_memory/batch=128 | oom |  |  |  |  |  | allocation of 2.00 GiB would exceed --mem-limit "
            "24.00 GiB |\n");
}

TEST(RunSummary, CsvQuotesFieldsWithCommas) {
  auto r = sample_result();
  r.workloads[1].message = "failed, badly";
  const std::string csv = format_run_summary(r, summary_format::csv);
  EXPECT_NE(csv.find("transformer_memory/batch=128,oom,,,,,,\"failed, badly\"\n"), std::string::npos) << csv;
  EXPECT_EQ(csv.rfind("workload,status,metric,median,unit,spread,min,max_or_message\n", 0), 0u);
}

TEST(RunSummary, TableAlignsColumnsAndMarksThrottling) {
  auto r = sample_result();
  r.workloads[0].clocks.throttled = true;
  const std::string t = format_run_summary(r, summary_format::table);
  EXPECT_NE(t.find("ok*"), std::string::npos);
  EXPECT_NE(t.find("* clock throttling was seen"), std::string::npos);
  EXPECT_EQ(t.rfind("workload", 0), 0u);
}

TEST(RunSummary, UnknownFormatIsInputError) { EXPECT_THROW(parse_summary_format("xml"), input_error); }
