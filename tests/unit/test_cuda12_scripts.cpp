// The CUDA 12 table's transport (scripts/cu12-libs.sh unpack) and driver (scripts/cuda12-ab.sh):
// chunks are checked and joined, the versioned cuDNN names survive the trip, a corrupt chunk is
// refused, and the driver refuses to start when a build is missing. Nothing downloads or needs a
// GPU: the "libraries" are small files packed here the way `pack` packs them.
#include <string>

#include <gtest/gtest.h>

#include "cli_runner.hpp"
#include "test_support.hpp"

namespace {

const std::string k_scripts = std::string(CUDABENCH_CONFIG_DIR) + "/../scripts/";

class Cu12Transport : public ::testing::Test {
 protected:
  std::string dir = cudabench::test::temp_path("cu12");
  void SetUp() override {
    // Two "libraries", a versioned link to one, SHA256SUMS, xz'd as `pack` does, split into two
    // chunks with one manifest each.
    const std::string make = "set -e; rm -rf '" + dir + "'; mkdir -p '" + dir + "/stage/lib' && cd '" + dir +
                             "/stage/lib' && head -c 300000 /dev/urandom > libcudnn.so.9 && "
                             "head -c 200000 /dev/urandom > libcudnn_cnn.so.9 && "
                             "ln -s libcudnn_cnn.so.9 libcudnn_cnn.so.9.14.0 && "
                             "sha256sum libcudnn.so.9 libcudnn_cnn.so.9 > SHA256SUMS && cd .. && "
                             "tar -cf - lib | xz -0 > cu12-libs-cudnn12.tar.xz && "
                             "split -b 300000 -d -a 1 cu12-libs-cudnn12.tar.xz part && "
                             "mkdir -p ../c1 ../c2 && mv part0 ../c1/cu12-libs-cudnn12.tar.xz.part1 && "
                             "mv part1 ../c2/cu12-libs-cudnn12.tar.xz.part2 && "
                             "{ sha256sum ../c1/*.part1 ../c2/*.part2 | sed 's#\\.\\./c[12]/##'; "
                             "sha256sum cu12-libs-cudnn12.tar.xz; } > ../manifest.sha256 && "
                             "cp ../manifest.sha256 ../c1/ && cp ../manifest.sha256 ../c2/";
    ASSERT_EQ(run_command("bash -c \"" + make + "\"").exit_code, 0);
  }
  void TearDown() override { run_command("rm -rf '" + dir + "'"); }
};

TEST_F(Cu12Transport, ChunksJoinIntoCheckedLibrariesWithTheirVersionedNames) {
  auto r = run_command(k_scripts + "cu12-libs.sh unpack '" + dir + "/c1' '" + dir + "/box'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("1 of 2 chunk(s)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("still to carry: cudnn12-part2"), std::string::npos) << r.output;
  r = run_command(k_scripts + "cu12-libs.sh unpack '" + dir + "/c2' '" + dir + "/box'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("LD_LIBRARY_PATH=" + dir + "/box/cudnn12/lib"), std::string::npos) << r.output;
  // The link cuDNN dlopens first is there and points at the carried file.
  EXPECT_EQ(run_command("test -L '" + dir + "/box/cudnn12/lib/libcudnn_cnn.so.9.14.0' && cmp '" + dir +
                        "/box/cudnn12/lib/libcudnn_cnn.so.9.14.0' '" + dir + "/stage/lib/libcudnn_cnn.so.9'")
                .exit_code,
            0);
  // Again: already there, nothing redone.
  r = run_command(k_scripts + "cu12-libs.sh unpack '" + dir + "/c2' '" + dir + "/box'");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("already unpacked"), std::string::npos) << r.output;
}

TEST_F(Cu12Transport, ACorruptChunkIsRefusedAndNotKept) {
  // In braces: run_command() redirects the command's stdout itself.
  ASSERT_EQ(run_command("{ printf x >> '" + dir + "/c1/cu12-libs-cudnn12.tar.xz.part1'; }").exit_code, 0);
  const auto r = run_command(k_scripts + "cu12-libs.sh unpack '" + dir + "/c1' '" + dir + "/box'");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("cu12-libs-cudnn12.tar.xz.part1 is corrupt"), std::string::npos) << r.output;
  EXPECT_NE(run_command("test -e '" + dir + "/box/.parts-cudnn12/cu12-libs-cudnn12.tar.xz.part1'").exit_code, 0);
}

TEST_F(Cu12Transport, AFolderThatWasNotCarriedIsNamed) {
  const auto r = run_command(k_scripts + "cu12-libs.sh unpack '" + dir + "/nothing' '" + dir + "/box'");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("was it named in carry?"), std::string::npos) << r.output;
}

TEST(Cuda12Ab, HelpAndUnknownCommand) {
  const auto help = run_command(k_scripts + "cuda12-ab.sh --help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_EQ(help.output.rfind("usage: scripts/cuda12-ab.sh unpack FOLDER...", 0), 0u) << help.output;
  EXPECT_EQ(run_command(k_scripts + "cuda12-ab.sh frob").exit_code, 2);
  EXPECT_EQ(run_command(k_scripts + "cuda12-ab.sh unpack").exit_code, 2);
}

TEST(Cuda12Ab, StartRefusesWithoutTheBuilds) {
  const std::string dest = cudabench::test::temp_path("cu12_dest");
  const auto r = run_command("CU12_DEST='" + dest + "' " + k_scripts + "cuda12-ab.sh start");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("no " + dest + "/bin-build-cu124/cudabench"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("not starting the ab"), std::string::npos) << r.output;
  run_command("rm -rf '" + dest + "'");
}

}  // namespace
