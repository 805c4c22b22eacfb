// Compiled by the core_refuses_cuda_headers test (tests/CMakeLists.txt) the way a cudabench::core
// source would be, with the real toolkit headers on the path too: it must stop at the stand-in's
// #error (cmake/no_cuda_headers/), not compile.
#include <cuda_runtime.h>

int main() { return 0; }
