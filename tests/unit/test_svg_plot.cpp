// The SVG writer behind the HTML reports (svg_plot.hpp) and the HTML escaping (html.hpp).
#include <gtest/gtest.h>

#include "cudabench/html.hpp"
#include "cudabench/svg_plot.hpp"

using namespace cudabench;

TEST(Html, EscapesEveryCharacterThatCouldOpenATagOrCloseAnAttribute) {
  EXPECT_EQ(html::escape("<a href=\"x\" title='y'>&</a>"),
            "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;");
  EXPECT_EQ(html::escape("matmul fp16 4096³"), "matmul fp16 4096³");  // UTF-8 passes through
}

TEST(Html, TruncatesByCodePoints) {
  EXPECT_EQ(html::truncate("4096³ matmul", 5), "4096³\u2026");
  EXPECT_EQ(html::truncate("short", 10), "short");
  EXPECT_EQ(html::truncate("exactly", 7), "exactly");
}

TEST(Html, PageForbidsScriptsAndFetchesAndEscapesTheTitle) {
  const std::string head = html::page_begin("<b>t</b>");
  EXPECT_NE(head.find("Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\""),
            std::string::npos);
  EXPECT_NE(head.find("<title>&lt;b&gt;t&lt;/b&gt;</title>"), std::string::npos);
  EXPECT_EQ(head.find("@import"), std::string::npos);
  EXPECT_EQ(head.find("url("), std::string::npos);
}

TEST(SvgPlot, NiceTicksAreRoundAndInside) {
  EXPECT_EQ(svg::nice_ticks({0, 1}, 4), (std::vector<double>{0, 0.25, 0.5, 0.75, 1}));
  const auto t = svg::nice_ticks({0.1962, 0.2138}, 4);
  ASSERT_GE(t.size(), 3u);
  for (double v : t) {
    EXPECT_GE(v, 0.1962);
    EXPECT_LE(v, 0.2138);
  }
  EXPECT_EQ(svg::tick_label(0.30000000000000004), "0.3");
  EXPECT_TRUE(svg::nice_ticks({1, 1}, 4).empty());
}

TEST(SvgPlot, PaddedRangeNeverEmpty) {
  const auto r = svg::padded(5, 5);
  EXPECT_LT(r.lo, 5);
  EXPECT_GT(r.hi, 5);
  const auto z = svg::padded(0, 0);
  EXPECT_DOUBLE_EQ(z.lo, -1);
  EXPECT_DOUBLE_EQ(z.hi, 1);
  const auto w = svg::padded(0, 10, 0.1);
  EXPECT_DOUBLE_EQ(w.lo, -1);
  EXPECT_DOUBLE_EQ(w.hi, 11);
}

TEST(SvgPlot, CoordinatesAreShort) {
  EXPECT_EQ(svg::num(12.0), "12");
  EXPECT_EQ(svg::num(12.34), "12.3");
  EXPECT_EQ(svg::num(-0.04), "0");
  const svg::scale y{0, 10, 100, 0};
  EXPECT_DOUBLE_EQ(y(0), 100);
  EXPECT_DOUBLE_EQ(y(10), 0);
}

TEST(SvgPlot, OnePathPerSeriesCountedAndTextEscaped) {
  svg::chart c(100, 50, "samples", "a<b");
  c.dots({{1, 2}, {3, 4}, {5, 6}}, "c0", "t\"x");
  c.text(1, 2, "<script>", "middle");
  const std::string s = c.finish();
  EXPECT_EQ(s.rfind("<svg width=\"100\" height=\"50\" viewBox=\"0 0 100 50\" data-chart=\"samples\"", 0), 0u) << s;
  EXPECT_NE(s.find("aria-label=\"a&lt;b\""), std::string::npos);
  EXPECT_NE(s.find("<path class=\"pt c0\" data-points=\"3\" d=\"M1 2h0M3 4h0M5 6h0\"><title>t&quot;x</title></path>"),
            std::string::npos)
      << s;
  EXPECT_NE(s.find(">&lt;script&gt;</text>"), std::string::npos);
  EXPECT_EQ(s.substr(s.size() - 6), "</svg>");
}
