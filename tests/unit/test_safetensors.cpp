// safetensors reader and writer: files written byte by byte here, plus truncation and shape errors.
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudabench/errors.hpp"
#include "cudabench/safetensors.hpp"

namespace fs = std::filesystem;
using namespace cudabench;

namespace {
std::string write_file(const std::string& name, const std::string& header, const std::vector<float>& data,
                       std::size_t drop_tail = 0) {
  const fs::path dir = fs::temp_directory_path() / "cudabench_st_test";
  fs::create_directories(dir);
  const fs::path p = dir / name;
  std::ofstream out(p, std::ios::binary);
  const std::uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out.put(static_cast<char>((n >> (8 * i)) & 0xff));
  out << header;
  std::string bytes(data.size() * 4, '\0');
  if (!data.empty()) std::memcpy(bytes.data(), data.data(), bytes.size());  // memcpy from null is UB
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size() - drop_tail));
  return p.string();
}
const std::string kHeader =
    R"({"__metadata__":{"format":"pt"},"w":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},)"
    R"("b":{"dtype":"F32","shape":[2],"data_offsets":[24,32]}})";
}  // namespace

TEST(Safetensors, ReadsTensorsAndData) {
  const auto path = write_file("ok.safetensors", kHeader, {1, 2, 3, 4, 5, 6, 7.5f, -8});
  const auto ck = checkpoint::open(path);
  const auto& w = ck.expect("w", {"F32"}, {2, 3});
  EXPECT_EQ(w.numel(), 6);
  const auto& b = ck.expect("b", {"F32", "F16"}, {2});
  float vals[2];
  std::memcpy(vals, ck.data(b), 8);
  EXPECT_FLOAT_EQ(vals[0], 7.5f);
  EXPECT_FLOAT_EQ(vals[1], -8.0f);
  EXPECT_EQ(ck.names().size(), 2u);
}

TEST(Safetensors, WrongShapeDtypeAndMissingNameTheTensor) {
  const auto path = write_file("ok2.safetensors", kHeader, {1, 2, 3, 4, 5, 6, 7, 8});
  const auto ck = checkpoint::open(path);
  try {
    ck.expect("w", {"F32"}, {3, 2});
    FAIL();
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()), path + ": tensor w: shape [2, 3] (expected [3, 2])");
  }
  try {
    ck.expect("w", {"F16"}, {2, 3});
    FAIL();
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()), path + ": tensor w: dtype F32 (expected F16)");
  }
  try {
    ck.expect("missing.weight", {}, {1});
    FAIL();
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()), path + ": tensor missing.weight is missing");
  }
}

TEST(Safetensors, TruncatedFileIsAnError) {
  const auto path = write_file("trunc.safetensors", kHeader, {1, 2, 3, 4, 5, 6, 7, 8}, 4);
  try {
    checkpoint::open(path);
    FAIL();
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("tensor b: data [24, 32) lies outside the 28 data bytes"), std::string::npos)
        << e.what();
  }
}

TEST(Safetensors, MissingPathIsAnError) { EXPECT_THROW(checkpoint::open("/nonexistent/dir/model"), input_error); }

// Found by fuzz/fuzz_safetensors.cpp: these threw nlohmann's invalid_iterator (exit 3 in the CLI)
// or overflowed int64 in the element count.
TEST(Safetensors, HostileHeadersAreInputErrors) {
  struct bad {
    std::string header, words;
  };
  for (const auto& b :
       {bad{"[1, 2]", "the header is array, not a JSON object of tensors"},
        bad{"\"x\"", "the header is string, not a JSON object of tensors"},
        bad{R"({"w": 5})", "tensor w: bad header entry"},
        bad{R"({"w":{"dtype":"F32","shape":[-1,2],"data_offsets":[0,8]}})",
            "tensor w: negative dimension in shape [-1, 2]"},
        bad{R"({"w":{"dtype":"F32","shape":[4611686018427387904,4],"data_offsets":[0,0]}})",
            "tensor w: shape [4611686018427387904, 4] is too large"},
        bad{R"({"w":{"dtype":"F32","shape":[3037000500,3037000500,2],"data_offsets":[0,0]}})", "is too large"},
        // Numbers past 64 bits parse as doubles; converting one to an integer was undefined behaviour.
        bad{R"({"w":{"dtype":"F32","shape":[8888888888888888888888880,16],"data_offsets":[0,0]}})",
            "tensor w: bad header entry: shape holds 8.888888888888889e+24, not a whole number in range"},
        bad{R"({"w":{"dtype":"F32","shape":[1.5],"data_offsets":[0,4]}})", "shape holds 1.5"},
        bad{R"({"w":{"dtype":"F32","shape":[9223372036854775808],"data_offsets":[0,0]}})",
            "shape holds 9223372036854775808"},
        bad{R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[-4,0]}})", "data_offsets holds -4"},
        bad{R"({"w":{"dtype":"F32","shape":"4","data_offsets":[0,4]}})", "shape is string, not an array"}}) {
    const auto path = write_file("hostile.safetensors", b.header, {});
    try {
      safetensors_file::open(path);
      FAIL() << b.header;
    } catch (const input_error& e) {
      EXPECT_NE(std::string(e.what()).find(b.words), std::string::npos) << e.what();
    }
  }
}

// The writer (torch_match's dump hook and the oracle helpers use it): what it writes reads back
// through the reader, metadata included, and bad input is refused before anything is written.
TEST(Safetensors, WriterRoundTripsThroughTheReader) {
  const fs::path dir = fs::temp_directory_path() / "cudabench_st_test";
  fs::create_directories(dir);
  const std::string path = (dir / "written.safetensors").string();
  const std::vector<float> w = {1, -2.5f, 3, 4, 5, 6};
  const std::vector<std::uint8_t> m = {1, 0, 1};
  write_safetensors(path,
                    {{"w", "F32", {2, 3}, w.data()}, {"mask", "U8", {3}, m.data()}, {"empty", "F32", {0}, nullptr}},
                    {{"mode", "train"}});
  const auto ck = checkpoint::open(path);
  const auto& wt = ck.expect("w", {"F32"}, {2, 3});
  float back[6];
  std::memcpy(back, ck.data(wt), sizeof back);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(back[i], w[i]);
  const auto& mt = ck.expect("mask", {"U8"}, {3});
  EXPECT_EQ(std::memcmp(ck.data(mt), m.data(), 3), 0);
  EXPECT_EQ(ck.expect("empty", {"F32"}, {0}).bytes(), 0u);
  std::ifstream in(path, std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::uint64_t n = 0;
  std::memcpy(&n, text.data(), 8);
  EXPECT_EQ(n % 8, 0u);  // padded, so the data section is 8-byte aligned
  EXPECT_NE(text.find(R"("__metadata__":{"mode":"train"})"), std::string::npos) << text.substr(0, 8 + n);

  EXPECT_THROW(write_safetensors(path, {{"x", "F31", {1}, w.data()}}), input_error);
  EXPECT_THROW(write_safetensors(path, {{"x", "F32", {1}, w.data()}, {"x", "F32", {1}, w.data()}}), input_error);
  EXPECT_THROW(write_safetensors(path, {{"__metadata__", "F32", {1}, w.data()}}), input_error);
}
