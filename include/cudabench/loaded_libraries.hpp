// Which CUDA libraries a process has actually mapped, and whether they mix CUDA releases.
//
// `environment.cublas_library`/`cudnn_library` name where one symbol of each library lives, but
// libraries load others by themselves: cuDNN 9 dlopens its sub-libraries by their full version
// name (libcudnn_cnn.so.9.14.0) and cuBLASLt by its CUDA major. Measured on an H200: a CUDA 12
// build with the CUDA 12 cuDNN 9.14 wheel on LD_LIBRARY_PATH loaded the box's own CUDA 13
// libcudnn_cnn.so.9.14.0 (the wheel ships only .so.9 names) and with it libcublasLt.so.13, so its
// "CUDA 12" ResNet-50 rows ran CUDA 13 engines. The process's memory map is what shows it.
// Host-only: the parsing is plain text, so it is tested without a GPU.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cudabench {

// The distinct paths of CUDA libraries (cudart, cuBLAS, cuBLASLt, cuDNN and its sub-libraries,
// NVRTC, nvJitLink) in a /proc/PID/maps text, sorted, each once.
std::vector<std::string> cuda_libraries_in_maps(std::string_view maps);

// What is wrong with a set of loaded libraries, or nothing: CUDA libraries of two CUDA majors
// (libcublasLt.so.12 beside libcublasLt.so.13, libcudart.so.12 beside libcublas.so.13, ...), or
// cuDNN's libraries from more than one directory (two cuDNN installs serving one process).
std::optional<std::string> library_mix_problem(const std::vector<std::string>& paths);

// cuda_libraries_in_maps of this process (/proc/self/maps); empty where that cannot be read.
std::vector<std::string> loaded_cuda_libraries();

}  // namespace cudabench
