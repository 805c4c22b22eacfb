// terminal_text and file_name_component: control characters made inert for terminals and file
// names, printable text (UTF-8 included) left alone.
#include <string>

#include <gtest/gtest.h>

#include "cudabench/text_safety.hpp"

using namespace cudabench;

TEST(TextSafety, ControlCharactersAreEscaped) {
  EXPECT_EQ(terminal_text("plain ascii, 4096³ × 2 → ok"), "plain ascii, 4096³ × 2 → ok");
  EXPECT_EQ(terminal_text("\x1b[31mred\x1b[0m"), "\\x1b[31mred\\x1b[0m");
  EXPECT_EQ(terminal_text(std::string("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(terminal_text("line\nbreak\ttab\rcr\x7f"), "line\\nbreak\\ttab\\rcr\\x7f");
  EXPECT_EQ(terminal_text("evil\u202Etxt.json"), "evil\\u{202e}txt.json");  // right-to-left override
  EXPECT_EQ(terminal_text("\u2066iso\u2069 \u200f"), "\\u{2066}iso\\u{2069} \\u{200f}");
  EXPECT_EQ(terminal_text("c1:\xc2\x9b"), "c1:\\u{009b}");       // C1 CSI
  EXPECT_EQ(terminal_text("bad \xff\xc3("), "bad \\xff\\xc3(");  // not UTF-8
  EXPECT_EQ(terminal_text("\xe0\x80\xaf"), "\\xe0\\x80\\xaf");   // overlong
  EXPECT_FALSE(has_control_text("CUDA 12.4 — H200"));
  EXPECT_TRUE(has_control_text("x\x1b"));
  EXPECT_TRUE(has_control_text("\u202E"));
  EXPECT_TRUE(valid_utf8("CUDA 12.4 — \x1b"));
  EXPECT_FALSE(valid_utf8("\xff"));
}

TEST(TextSafety, JsonTextKeepsItsValueButNotRawDirectionControls) {
  EXPECT_EQ(json_text_safe(R"({"a": "x³"})"), R"({"a": "x³"})");
  EXPECT_EQ(json_text_safe("{\"a\": \"evil\u202Etxt\xc2\x9b\"}"), R"({"a": "evil\u202etxt\u009b"})");
}

TEST(TextSafety, FileNameComponents) {
  EXPECT_EQ(file_name_component("quick"), "quick");
  EXPECT_EQ(file_name_component("my suite v1.2"), "my_suite_v1.2");
  EXPECT_EQ(file_name_component("\x1b[31mred\u202E"), "_31mred_");
  EXPECT_EQ(file_name_component(std::string("a\0b", 3)), "a_b");
  EXPECT_EQ(file_name_component("../../etc/passwd"), "_.._etc_passwd");
  EXPECT_EQ(file_name_component("-rf"), "rf");
  EXPECT_EQ(file_name_component(".hidden"), "hidden");
  EXPECT_EQ(file_name_component(""), "unnamed");
  EXPECT_EQ(file_name_component("///"), "_");
  EXPECT_EQ(file_name_component(std::string(200, 'x')).size(), 64u);
}
