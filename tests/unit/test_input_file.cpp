// input_file refuses what is not a regular file before reading a byte of it (a FIFO would block,
// /dev/zero never ends), and says what the path is instead.
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "cudabench/errors.hpp"
#include "cudabench/input_file.hpp"
#include "test_support.hpp"

using namespace cudabench;
using cudabench::test::temp_path;
using cudabench::test::write_text;

namespace {

std::string open_error(const std::string& path, std::uint64_t max_bytes = 1 << 20) {
  try {
    input_file::open(path, "thing file", max_bytes);
  } catch (const input_error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(InputFile, ReadsARegularFile) {
  const std::string p = temp_path("regular.txt");
  write_text(p, "hello");
  input_file f = input_file::open(p, "thing file", 100);
  EXPECT_EQ(f.size(), 5u);
  EXPECT_EQ(f.read_all(), "hello");
  f.rewind();
  EXPECT_EQ(f.read_all(), "hello");
  std::remove(p.c_str());
}

TEST(InputFile, RefusesWhatIsNotARegularFile) {
  EXPECT_EQ(open_error("/tmp"), "/tmp: is a directory, not a regular file (expected a thing file)");
  EXPECT_EQ(open_error("/dev/null"), "/dev/null: is a character device, not a regular file (expected a thing file)");
  EXPECT_EQ(open_error("/dev/zero"), "/dev/zero: is a character device, not a regular file (expected a thing file)");
  const std::string fifo = temp_path("fifo");
  std::remove(fifo.c_str());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(open_error(fifo), fifo + ": is a FIFO (named pipe), not a regular file (expected a thing file)");
  std::remove(fifo.c_str());
}

TEST(InputFile, MissingEmptyLoopingAndTooLarge) {
  EXPECT_EQ(open_error("/nonexistent/x.json"), "/nonexistent/x.json: no such file (expected a thing file)");
  EXPECT_EQ(open_error(""), "an empty path was given (expected a thing file)");
  const std::string empty = temp_path("empty.json");
  write_text(empty, "");
  EXPECT_EQ(open_error(empty), empty + ": empty file (expected a thing file)");
  std::remove(empty.c_str());

  const std::string a = temp_path("loop_a"), b = temp_path("loop_b");
  std::remove(a.c_str());
  std::remove(b.c_str());
  ASSERT_EQ(::symlink(b.c_str(), a.c_str()), 0);
  ASSERT_EQ(::symlink(a.c_str(), b.c_str()), 0);
  EXPECT_EQ(open_error(a), a + ": too many levels of symbolic links (a symlink loop?); expected a thing file");
  std::remove(b.c_str());
  EXPECT_EQ(open_error(a), a + ": a symbolic link to a file that does not exist (expected a thing file)");
  std::remove(a.c_str());

  const std::string big = temp_path("big.json");
  write_text(big, "");
  ASSERT_EQ(::truncate(big.c_str(), 3 << 20), 0);  // sparse: no disk used
  EXPECT_EQ(open_error(big), big + ": 3.0 MiB is larger than a thing file may be (1.0 MiB, see README \"Limits\")");
  std::remove(big.c_str());
}

TEST(InputFile, IdentityFollowsLinks) {
  const std::string p = temp_path("ident.txt"), l = temp_path("ident_link");
  write_text(p, "x");
  std::remove(l.c_str());
  ASSERT_EQ(::symlink(p.c_str(), l.c_str()), 0);
  ASSERT_TRUE(identity_of(p).has_value());
  EXPECT_EQ(*identity_of(p), *identity_of(l));
  EXPECT_FALSE(identity_of(p + ".missing").has_value());
  EXPECT_TRUE(path_exists(l));
  std::remove(l.c_str());
  std::remove(p.c_str());
}
