// The library-mix guard: /proc/PID/maps parsing and the rules that call a set of loaded CUDA
// libraries mixed. The mixed example is the one measured on the H200 (a CUDA 12 build whose
// cuDNN wheel lacked the versioned names its libcudnn.so.9 dlopens).
#include <gtest/gtest.h>

#include "cudabench/loaded_libraries.hpp"

namespace cudabench {
namespace {

std::string map_line(const std::string& path) {
  return "7f1c2a000000-7f1c2a200000 r-xp 00000000 fd:01 1234567                    " + path + "\n";
}

TEST(LoadedLibraries, ParsesPathsOfCudaLibrariesOnly) {
  const std::string maps = map_line("/tmp/cu12/12.4/lib/libcublasLt.so.12") +
                           map_line("/tmp/cu12/12.4/lib/libcublasLt.so.12") +  // several segments
                           map_line("/tmp/cu12/12.4/lib/libcudart.so.12") +
                           map_line("/usr/lib/x86_64-linux-gnu/libc.so.6") +
                           map_line("/usr/lib/x86_64-linux-gnu/libcudnn_ops.so.9.14.0") +
                           map_line("/opt/x/libcudnn.so.9") + map_line("/opt/x/libnvrtc.so.12 (deleted)") +
                           map_line("/opt/x/libcublasLt_static.a") +  // not a shared CUDA library
                           "7ffd1c000000-7ffd1c021000 rw-p 00000000 00:00 0                          [stack]\n"
                           "7f1c2a400000-7f1c2a600000 rw-p 00000000 00:00 0 \n";
  const std::vector<std::string> want = {"/opt/x/libcudnn.so.9", "/opt/x/libnvrtc.so.12",
                                         "/tmp/cu12/12.4/lib/libcublasLt.so.12", "/tmp/cu12/12.4/lib/libcudart.so.12",
                                         "/usr/lib/x86_64-linux-gnu/libcudnn_ops.so.9.14.0"};
  EXPECT_EQ(cuda_libraries_in_maps(maps), want);
}

TEST(LoadedLibraries, PathsWithSpacesAreKept) {
  EXPECT_EQ(cuda_libraries_in_maps(map_line("/opt/my libs/libcublas.so.12")),
            std::vector<std::string>{"/opt/my libs/libcublas.so.12"});
}

TEST(LoadedLibraries, OneStackIsNotAMix) {
  EXPECT_FALSE(library_mix_problem({"/tmp/cu12/12.4/lib/libcublasLt.so.12", "/tmp/cu12/12.4/lib/libcublas.so.12",
                                    "/tmp/cu12/12.4/lib/libcudart.so.12", "/tmp/cu12/cudnn12/lib/libcudnn.so.9",
                                    "/tmp/cu12/cudnn12/lib/libcudnn_cnn.so.9.14.0",
                                    "/tmp/cu12/cudnn12/lib/libcudnn_engines_precompiled.so.9.14.0"}));
  // cuBLAS and cudart from different directories of one CUDA major are one release family.
  EXPECT_FALSE(library_mix_problem({"/usr/local/cuda/lib64/libcudart.so.13.0.96",
                                    "/usr/local/cuda-13.0/targets/x86_64-linux/lib/libcublasLt.so.13"}));
  EXPECT_FALSE(library_mix_problem({}));
}

TEST(LoadedLibraries, TheH200MixIsCaught) {
  const auto p =
      library_mix_problem({"/tmp/cu12/12.4/lib/libcublasLt.so.12", "/tmp/cu12/12.4/lib/libcudart.so.12",
                           "/tmp/cu12/cudnn12/lib/libcudnn.so.9", "/lib/x86_64-linux-gnu/libcudnn_cnn.so.9.14.0",
                           "/lib/x86_64-linux-gnu/libcudnn_engines_precompiled.so.9.14.0",
                           "/usr/local/cuda/targets/x86_64-linux/lib/libcublasLt.so.13"});
  ASSERT_TRUE(p);
  EXPECT_NE(p->find("2 CUDA majors"), std::string::npos) << *p;
  EXPECT_NE(p->find("CUDA 12: /tmp/cu12/12.4/lib/libcublasLt.so.12"), std::string::npos) << *p;
  EXPECT_NE(p->find("CUDA 13: /usr/local/cuda/targets/x86_64-linux/lib/libcublasLt.so.13"), std::string::npos) << *p;
  EXPECT_NE(p->find("cuDNN libraries come from 2 directories"), std::string::npos) << *p;
  EXPECT_NE(p->find("/lib/x86_64-linux-gnu: libcudnn_cnn.so.9.14.0"), std::string::npos) << *p;
}

TEST(LoadedLibraries, TwoCudnnDirectoriesAloneAreAMix) {
  const auto p = library_mix_problem({"/a/libcudnn.so.9", "/b/libcudnn_ops.so.9"});
  ASSERT_TRUE(p);
  EXPECT_EQ(p->find("CUDA majors"), std::string::npos) << *p;
}

TEST(LoadedLibraries, CudartOfOneMajorBesideCublasOfAnother) {
  EXPECT_TRUE(library_mix_problem({"/x/libcudart.so.12", "/y/libcublas.so.13"}));
  // An unversioned name says nothing about its major.
  EXPECT_FALSE(library_mix_problem({"/x/libcudart.so.12", "/y/libcublas.so"}));
}

TEST(LoadedLibraries, ThisProcessMapsNoCudaLibrary) {
  // The unit tests link the host-only core: no CUDA library may be mapped (and /proc works here).
  EXPECT_TRUE(loaded_cuda_libraries().empty());
}

}  // namespace
}  // namespace cudabench
