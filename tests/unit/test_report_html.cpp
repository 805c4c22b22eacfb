// The HTML report (report_html.hpp): what it draws (counted through the data-chart / data-points /
// data-bars attributes), the same verdicts as `compare`, and that nothing from a file can inject
// markup or make the page fetch anything. The browser-side check is scripts/check-report.sh.
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core/report/report_common.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/html.hpp"
#include "cudabench/id_filter.hpp"
#include "cudabench/report_html.hpp"
#include "test_support.hpp"

using namespace cudabench;

namespace {

std::string render(const std::vector<std::string>& paths, compare_options opt = {}) {
  html_report_input in;
  for (const auto& p : paths) {
    in.files.push_back(read_result_file(p));
    in.sources.push_back(p);
  }
  in.options = std::move(opt);
  std::ostringstream out;
  write_html_report(in, out);
  return out.str();
}

std::string data(const std::string& name) { return test::data_path("results/" + name); }
std::string h200(const std::string& name) { return std::string(CUDABENCH_CONFIG_DIR) + "/../results/h200/" + name; }

std::size_t count(const std::string& s, const std::string& what) {
  std::size_t n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + what.size())) ++n;
  return n;
}

// Sum of an attribute's numeric values inside the charts of one kind.
long sum_in_charts(const std::string& html, const std::string& kind, const std::string& attr) {
  long total = 0;
  const std::string open = "data-chart=\"" + kind + "\"";
  for (auto p = html.find(open); p != std::string::npos; p = html.find(open, p + 1)) {
    const auto end = html.find("</svg>", p);
    const std::string chart = html.substr(p, end - p);
    const std::regex re(attr + "=\"([0-9]+)\"");
    for (std::sregex_iterator it(chart.begin(), chart.end(), re), e; it != e; ++it) total += std::stol((*it)[1]);
  }
  return total;
}

// Every tag in the page: file strings are escaped, so each '<' is markup cudabench wrote.
std::vector<std::string> tags(const std::string& html) {
  std::vector<std::string> out;
  const std::regex re("<[^>]*>");
  for (std::sregex_iterator it(html.begin(), html.end(), re), e; it != e; ++it) out.push_back(it->str());
  return out;
}

void expect_nothing_fetched_or_run(const std::string& html, bool anywhere) {
  const std::regex external(R"((src|href)\s*=\s*["']?\s*(https?:)?//)", std::regex::icase);
  const std::regex handler(R"(\son[a-z]+\s*=)", std::regex::icase);
  for (const auto& t : tags(html)) {
    EXPECT_FALSE(std::regex_search(t, external)) << t;
    EXPECT_FALSE(std::regex_search(t, handler)) << t;
    for (const char* bad : {"<script", "<img", "<iframe", "<object", "<embed", "<link", "<base"})
      EXPECT_NE(t.rfind(bad, 0), 0u) << t;
  }
  const auto style = html.substr(html.find("<style>"), html.find("</style>") - html.find("<style>"));
  EXPECT_EQ(style.find("@import"), std::string::npos);
  EXPECT_EQ(style.find("url("), std::string::npos);
  EXPECT_EQ(count(html, "<style>"), 1u);
  if (anywhere) {  // the literal test of the acceptance list, for pages made from ordinary files
    EXPECT_FALSE(std::regex_search(html, std::regex(R"((src|href)\s*=\s*["']?https?:)", std::regex::icase)));
    EXPECT_EQ(html.find("@import"), std::string::npos);
    EXPECT_EQ(html.find("url(http"), std::string::npos);
  }
}

}  // namespace

TEST(ReportHtml, OneRunEveryWorkloadEverySample) {
  const std::string html = render({h200("full.json")});
  const result_file f = read_result_file(h200("full.json"));
  long samples = 0;
  for (const auto& w : f.workloads) samples += static_cast<long>(w.metrics.front().second.samples.size());
  EXPECT_EQ(count(html, "data-chart=\"samples\""), f.workloads.size());
  EXPECT_EQ(sum_in_charts(html, "samples", "data-points"), samples);
  EXPECT_EQ(count(html, "data-chart=\"clock\""), f.workloads.size());  // every workload recorded its SM clock
  EXPECT_EQ(count(html, "data-chart=\"change\""), 0u);                 // one file: no comparison
  EXPECT_EQ(count(html, "<article class=\"wl"), f.workloads.size());
  EXPECT_NE(html.find("<th>GPU</th><td>NVIDIA H200</td>"), std::string::npos);
  EXPECT_NE(html.find("<th>power limit (W)</th><td>700.0</td>"), std::string::npos);
  EXPECT_NE(html.find("/usr/local/cuda/lib64/libcublasLt.so.13"), std::string::npos);  // the loaded cuBLAS
  // The throttled rows of that run (sw_power_cap) are marked.
  std::size_t throttled = 0;
  for (const auto& w : f.workloads) throttled += w.clocks.throttled || !w.clocks.throttle_reasons.empty();
  EXPECT_GT(throttled, 0u);
  EXPECT_EQ(count(html, "<article class=\"wl thr\""), throttled);
  expect_nothing_fetched_or_run(html, true);
}

TEST(ReportHtml, ThreeWayHasCompareVerdictsBarsAndRounds) {
  const std::vector<std::string> files = {data("cu121.json"), data("cu124.json"), data("cu126.json")};
  const std::string html = render(files);
  std::vector<result_file> rf;
  for (const auto& p : files) rf.push_back(read_result_file(p));
  const comparison c = compare_results(rf, files, {});
  // compare's own summary lines and method: the same verdicts as `cudabench compare`.
  for (std::size_t k = 0; k < c.candidates(); ++k)
    EXPECT_NE(html.find(report_detail::summary_line(c, k)), std::string::npos) << report_detail::summary_line(c, k);
  EXPECT_NE(html.find(html::escape(c.method)), std::string::npos) << c.method;
  EXPECT_EQ(count(html, "data-chart=\"change\""), 2u);
  // Bars: every row of a candidate with a change; a verdict's bars share one path with its class.
  int bars = 0;
  for (const auto& r : c.rows)
    for (std::size_t k = 0; k < r.changes.size(); ++k) {
      const auto v = r.changes[k].outcome;
      bars += (v == verdict::improved || v == verdict::regressed || v == verdict::unchanged ||
               v == verdict::inconclusive) &&
              r.changes[k].change_pct;
    }
  EXPECT_EQ(sum_in_charts(html, "change", "data-bars"), bars);
  EXPECT_NE(html.find("class=\"v-regressed\""), std::string::npos);
  EXPECT_NE(html.find("class=\"v-improved\""), std::string::npos);
  // Samples: every file's side, and the per-round medians of 5-round files.
  EXPECT_NE(html.find("data-rounds=\"5\""), std::string::npos);
  // What differs, highlighted; the OOM of cu124 shown with its message.
  EXPECT_NE(html.find("<li><b>cuda_toolkit</b>: 12.1.105 \u2192 12.4.131 \u2192 12.6.77</li>"), std::string::npos);
  EXPECT_NE(html.find("class=\"diff\""), std::string::npos);
  EXPECT_NE(html.find(">OOM</text>"), std::string::npos);
  EXPECT_NE(html.find("cudaMalloc of 24.00 GiB failed: out of device memory"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"badge thr\">throttled</span>"), std::string::npos);
  expect_nothing_fetched_or_run(html, true);
}

TEST(ReportHtml, DifferentGpuModelsAreALoudWarning) {
  const std::string html = render({data("cu121.json"), data("cu121_a100.json")});
  EXPECT_NE(html.find("<div class=\"warn\">Warning: the files ran on different GPU models"), std::string::npos);
}

TEST(ReportHtml, FilterAndMetricChooseWhatIsDrawn) {
  compare_options opt;
  opt.filter = [](const std::string& id) { return id_matches(id, "matmul/*"); };
  opt.metrics = {"tflops"};
  const std::string html = render({data("cu121.json"), data("cu124.json")}, opt);
  EXPECT_EQ(count(html, "<article class=\"wl"), 2u);
  EXPECT_EQ(count(html, "data-chart=\"samples\" role=\"img\" aria-label=\"tflops\""), 2u);
  EXPECT_EQ(html.find("memory_bandwidth/"), std::string::npos);
}

TEST(ReportHtml, NothingFromAFileCanInjectMarkup) {
  // hostile.json: HTML and script in the label, host, GPU name, library path, commit, suite name, a
  // message, tuning, throttle reasons, and a workload whose id, kind, params, metric and unit are
  // markup.
  const std::string html = render({data("cu121.json"), data("hostile.json")});
  expect_nothing_fetched_or_run(html, false);
  EXPECT_NE(html.find("CUDA &quot;12.4&quot; &lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("&quot;&gt;&lt;img src=x onerror=alert(2)&gt;"), std::string::npos);
  EXPECT_NE(html.find("evil/&lt;script&gt;alert(8)&lt;/script&gt;"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<iframe"), std::string::npos);
  EXPECT_EQ(html.find("<style>@"), std::string::npos);
  // Alone, too (no comparison, so only the per-workload paths).
  expect_nothing_fetched_or_run(render({data("hostile.json")}), false);
}

TEST(ReportHtml, BadInputIsAnInputErrorLikeCompare) {
  EXPECT_THROW(render({data("cu121.json"), data("disjoint.json")}), input_error);
  EXPECT_THROW(render({data("cu121.json"), data("nan_sample.json")}), input_error);
  html_report_input empty;
  std::ostringstream out;
  EXPECT_THROW(write_html_report(empty, out), input_error);
}
