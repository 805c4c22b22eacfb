// Stands in for the CUDA toolkit's curand.h in front of cudabench::core's include path (CMakeLists.txt):
// core is host-only, and a source of it that reaches a CUDA header fails to build, everywhere.
#error "cudabench::core is host-only: a core source includes a CUDA header (move it to cudabench::gpu)"
