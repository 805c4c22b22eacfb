// The element types the workloads use, with the names suites and result files spell them in
// (the `dtype` parameter values) and their storage size. Host-only and free of CUDA headers, so
// the core library and the kernels' headers can both use it; the CUDA/cuBLAS type of each is in
// dtype_cuda.hpp.
#pragma once
#include <cstddef>
#include <initializer_list>
#include <string>

namespace cudabench {

enum class dtype {
  fp32,      // IEEE single
  tf32,      // fp32 storage, multiplied on TF32 tensor cores (a compute mode, not a storage type)
  fp16,      // IEEE half
  bf16,      // bfloat16
  fp8_e4m3,  // 8-bit float, 4 exponent and 3 mantissa bits (named "fp8")
};

// The name in suites and result files: "fp32", "tf32", "fp16", "bf16", "fp8".
constexpr const char* dtype_name(dtype d) {
  switch (d) {
    case dtype::fp32: return "fp32";
    case dtype::tf32: return "tf32";
    case dtype::fp16: return "fp16";
    case dtype::bf16: return "bf16";
    case dtype::fp8_e4m3: return "fp8";
  }
  return "?";
}

// The type the values are stored as: tf32 is fp32 in memory.
constexpr dtype storage_dtype(dtype d) { return d == dtype::tf32 ? dtype::fp32 : d; }

// Bytes per stored element.
constexpr std::size_t dtype_bytes(dtype d) {
  switch (d) {
    case dtype::fp32:
    case dtype::tf32: return 4;
    case dtype::fp16:
    case dtype::bf16: return 2;
    case dtype::fp8_e4m3: return 1;
  }
  return 0;
}

// `name` as one of `allowed` (a kind's dtype choices); throws input_error
// `<who>: unknown dtype "<name>" (expected <allowed names, comma-separated>)` otherwise.
dtype parse_dtype(const std::string& name, const char* who, std::initializer_list<dtype> allowed);

}  // namespace cudabench
