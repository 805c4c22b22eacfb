// The suite module's helpers: SHA-256 (FIPS 180-4 vectors), byte sizes, id globbing, and the
// typed accessors of workload_spec.
#include <stdexcept>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "core/io/sha256.hpp"  // private to cudabench::core
#include "cudabench/errors.hpp"
#include "cudabench/id_filter.hpp"
#include "cudabench/suite.hpp"

using cudabench::id_matches;
using cudabench::input_error;
using cudabench::parse_byte_size;

// ---- SHA-256 ---------------------------------------------------------------------------------

TEST(Sha256, StandardVectors) {
  using cudabench::sha256_hex;
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),  // 448 bits
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  const std::string bits_896 =
      "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
  EXPECT_EQ(sha256_hex(bits_896), "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
  EXPECT_EQ(sha256_hex(std::string(1000000, 'a')), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, MillionAStreamedInChunks) {
  // The same vector fed the way a file is read: fixed-size chunks, the last one short.
  const std::string chunk(4096, 'a');
  cudabench::sha256 h;
  std::size_t left = 1000000;
  for (; left >= chunk.size(); left -= chunk.size()) h.update(chunk);
  h.update(chunk.data(), left);
  EXPECT_EQ(h.hex_digest(), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

TEST(Sha256, BinaryBytesAndEmptyUpdates) {
  // Embedded NULs and high bytes are hashed as bytes (string_view keeps its length); empty updates
  // change nothing, a null pointer with size 0 included.
  const std::string bytes("\x00\xff\x00\x80", 4);
  cudabench::sha256 h;
  h.update(nullptr, 0);
  h.update(bytes);
  h.update(std::string_view());
  EXPECT_EQ(h.hex_digest(), cudabench::sha256_hex(bytes));
  EXPECT_NE(cudabench::sha256_hex(bytes), cudabench::sha256_hex(std::string("\x00\xff", 2)));
  // `printf '\x00\xff\x00\x80' | sha256sum`
  EXPECT_EQ(cudabench::sha256_hex(bytes), "787a4bce1c8b1ef7f111820f3840c98b4ddf51d55f5e7a9b007fb6224bb563bc");
}

TEST(Sha256, IncrementalUpdatesMatchOneShot) {
  // 55, 56 and 64 bytes straddle the padding boundaries; feed them in uneven pieces.
  for (std::size_t n : {55u, 56u, 63u, 64u, 65u, 119u, 200u}) {
    std::string text;
    for (std::size_t i = 0; i < n; ++i) text += char('a' + i % 26);
    cudabench::sha256 h;
    for (std::size_t i = 0; i < n; i += 7) h.update(text.substr(i, 7));
    EXPECT_EQ(h.hex_digest(), cudabench::sha256_hex(text)) << n << " bytes";
  }
}

TEST(Sha256, DigestBytesMatchHexAndFinishOnce) {
  cudabench::sha256 h;
  h.update("abc");
  const auto bytes = h.digest();
  EXPECT_EQ(bytes[0], 0xba);
  EXPECT_EQ(bytes[31], 0xad);
  // Finished: a second digest or a further update is a programming error, not a wrong hash.
  EXPECT_THROW(h.digest(), std::logic_error);
  EXPECT_THROW(h.update("more"), std::logic_error);
}

// ---- byte sizes ------------------------------------------------------------------------------

TEST(ByteSize, UnitsAndFractions) {
  EXPECT_EQ(parse_byte_size("1024", ""), 1024u);
  EXPECT_EQ(parse_byte_size("0", ""), 0u);
  EXPECT_EQ(parse_byte_size("7B", ""), 7u);
  EXPECT_EQ(parse_byte_size("512MiB", ""), 536870912u);
  EXPECT_EQ(parse_byte_size("1GiB", ""), 1073741824u);
  EXPECT_EQ(parse_byte_size("1.5GiB", ""), 1610612736u);
  EXPECT_EQ(parse_byte_size("2KiB", ""), 2048u);
  EXPECT_EQ(parse_byte_size("1TiB", ""), 1099511627776u);
  EXPECT_EQ(parse_byte_size("4GB", ""), 4000000000u);
  EXPECT_EQ(parse_byte_size("1KB", ""), 1000u);
  EXPECT_EQ(parse_byte_size("3MB", ""), 3000000u);
  EXPECT_EQ(parse_byte_size("2TB", ""), 2000000000000u);
  EXPECT_EQ(parse_byte_size("0.5KiB", ""), 512u);
  EXPECT_EQ(parse_byte_size("1.25 GB", ""), 1250000000u);
  EXPECT_EQ(parse_byte_size("16777215TiB", ""), 16777215ull << 40);
  EXPECT_EQ(parse_byte_size("18446744073709551615", ""), 18446744073709551615ull);  // 2^64 - 1
}

TEST(ByteSize, ErrorsNameContextAndInput) {
  const auto error_of = [](const std::string& text) -> std::string {
    try {
      parse_byte_size(text, "x.json: workloads[0].bytes");
    } catch (const input_error& e) {
      return e.what();
    }
    return "";
  };
  const std::string tail =
      "; expected an integer with an optional unit B, KB, MB, GB, TB, KiB, MiB, GiB or TiB, e.g. "
      "\"512MiB\", \"1.5GiB\", \"4GB\")";
  EXPECT_EQ(error_of("1gib"), R"(x.json: workloads[0].bytes: invalid byte size "1gib" (unknown unit "gib")" + tail);
  EXPECT_EQ(error_of("GiB"), R"(x.json: workloads[0].bytes: invalid byte size "GiB" (no number)" + tail);
  EXPECT_EQ(error_of("-1KiB"), R"(x.json: workloads[0].bytes: invalid byte size "-1KiB" (no number)" + tail);
  EXPECT_EQ(error_of("1.KiB"),
            R"(x.json: workloads[0].bytes: invalid byte size "1.KiB" (no digits after the decimal point)" + tail);
  EXPECT_EQ(error_of("1.3B"),
            R"(x.json: workloads[0].bytes: invalid byte size "1.3B" (not a whole number of bytes)" + tail);
  EXPECT_EQ(error_of("16777217TiB"),
            R"(x.json: workloads[0].bytes: invalid byte size "16777217TiB" (too large)" + tail);
  EXPECT_EQ(error_of("18446744073709551616"),
            R"(x.json: workloads[0].bytes: invalid byte size "18446744073709551616" (too large)" + tail);
  EXPECT_EQ(error_of("0.0000000000000000000000001GiB"),
            R"(x.json: workloads[0].bytes: invalid byte size "0.0000000000000000000000001GiB" (too many digits)" +
                tail);
  EXPECT_EQ(error_of(""), R"(x.json: workloads[0].bytes: invalid byte size "" (no number)" + tail);
  EXPECT_THROW(parse_byte_size("1e9", ""), input_error);
}

// ---- id globbing -----------------------------------------------------------------------------

TEST(IdMatches, EmptyMatchesEverything) {
  EXPECT_TRUE(id_matches("matmul/dtype=fp16/m=1/n=1/k=1", ""));
  EXPECT_TRUE(id_matches("matmul/dtype=fp16/m=1/n=1/k=1", " , "));
}

TEST(IdMatches, StarAndQuestionMark) {
  const std::string id = "matmul/dtype=fp16/m=4096/n=4096/k=4096";
  EXPECT_TRUE(id_matches(id, "matmul/*"));
  EXPECT_TRUE(id_matches(id, "*"));
  EXPECT_TRUE(id_matches(id, "*fp16*"));
  EXPECT_TRUE(id_matches(id,
                         "matmul/dtype=fp?"
                         "?/*"));
  EXPECT_TRUE(id_matches(id, "*/k=4096"));
  EXPECT_TRUE(id_matches(id, id));
  EXPECT_TRUE(id_matches(id, "m*m*=4096*k=4096"));  // backtracking over several stars
  EXPECT_FALSE(id_matches(id, "matmul"));           // whole-id match, not substring
  EXPECT_FALSE(id_matches(id, "*bf16*"));
  EXPECT_FALSE(id_matches(id, "matmul/dtype=fp?/*"));
  EXPECT_FALSE(id_matches(id, "*/k=409"));
  EXPECT_FALSE(id_matches("", "?"));
  EXPECT_TRUE(id_matches("", "*"));
}

TEST(IdMatches, CommaSeparatedAlternatives) {
  EXPECT_TRUE(id_matches("memory_bandwidth/op=d2d/bytes=1024", "matmul/*,memory_bandwidth/*"));
  EXPECT_TRUE(id_matches("memory_bandwidth/op=d2d/bytes=1024", "matmul/*, *op=d2d*"));  // spaces trimmed
  EXPECT_FALSE(id_matches("memory_bandwidth/op=memset/bytes=1024", "matmul/*,*op=d2d*"));
  EXPECT_FALSE(id_matches("toy/scale=1", "matmul/*,"));  // an empty alternative adds nothing
}

// ---- workload_spec accessors -----------------------------------------------------------------

TEST(WorkloadSpec, TypedAccessors) {
  cudabench::workload_spec w;
  w.id = "toy/a=1";
  w.kind = "toy";
  w.params = {{"i", 42}, {"x", 0.5}, {"s", "fp16"}, {"b", true}};
  EXPECT_EQ(w.get_int("i"), 42);
  EXPECT_DOUBLE_EQ(w.get_number("x"), 0.5);
  EXPECT_DOUBLE_EQ(w.get_number("i"), 42.0);  // an integer is a number
  EXPECT_EQ(w.get_string("s"), "fp16");
  EXPECT_TRUE(w.get_bool("b"));
  EXPECT_TRUE(w.has("s"));
  EXPECT_FALSE(w.has("batch"));
  const auto error_of = [&](auto&& call) -> std::string {
    try {
      call();
    } catch (const input_error& e) {
      return e.what();
    }
    return "";
  };
  EXPECT_EQ(error_of([&] { w.get_int("batch"); }), R"(workload "toy/a=1": parameter "batch" is missing)");
  EXPECT_EQ(error_of([&] { w.get_int("s"); }),
            R"(workload "toy/a=1": parameter "s" is string "fp16", expected an integer)");
  EXPECT_EQ(error_of([&] { w.get_int("x"); }),
            R"(workload "toy/a=1": parameter "x" is number 0.5, expected an integer)");
  EXPECT_EQ(error_of([&] { w.get_string("i"); }),
            R"(workload "toy/a=1": parameter "i" is integer 42, expected a string)");
  EXPECT_EQ(error_of([&] { w.get_bool("i"); }),
            R"(workload "toy/a=1": parameter "i" is integer 42, expected a boolean)");
  EXPECT_EQ(error_of([&] { w.get_number("b"); }),
            R"(workload "toy/a=1": parameter "b" is boolean true, expected a number)");
}
