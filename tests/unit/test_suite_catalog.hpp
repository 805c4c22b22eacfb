// A test-local kind catalog shaped like the real registry's kinds (the unit tests do not link
// the GPU library): `matmul` and `memory_bandwidth` with the same parameters, plus `toy`, which
// covers the parameter types and options the real kinds do not use.
#pragma once
#include "cudabench/kind_schema.hpp"

namespace cudabench::test {

inline param_def param(const char* name, param_type type, const char* help) {
  param_def p;
  p.name = name;
  p.type = type;
  p.help = help;
  return p;
}

inline kind_catalog test_catalog() {
  kind_schema matmul{"matmul", "GEMM through cuBLASLt", {}};
  {
    param_def dtype = param("dtype", param_type::string, "element type");
    dtype.default_value = "fp32";
    dtype.choices = {"fp32", "tf32", "fp16", "bf16", "fp8"};
    matmul.params.push_back(dtype);
    for (const char* dim : {"m", "n", "k"}) {
      param_def p = param(dim, param_type::integer, "matrix size");
      p.required = true;
      p.min = 1;
      matmul.params.push_back(p);
    }
    param_def batch = param("batch", param_type::integer, "batch count (optional)");
    batch.min = 1;
    matmul.params.push_back(batch);
  }
  kind_schema memory{"memory_bandwidth", "copies and memset", {}};
  {
    param_def op = param("op", param_type::string, "operation");
    op.required = true;
    op.choices = {"d2d", "h2d_pinned", "d2h_pinned", "h2d_pageable", "d2h_pageable", "memset"};
    memory.params.push_back(op);
    param_def bytes = param("bytes", param_type::bytes, "bytes moved");
    bytes.default_value = "256MiB";
    bytes.min = 1;
    memory.params.push_back(bytes);
  }
  kind_schema toy{"toy", "every parameter type", {}};
  {
    param_def scale = param("scale", param_type::number, "a number");
    scale.default_value = 1.0;
    scale.min = 0;
    scale.max = 10;
    toy.params.push_back(scale);
    param_def flag = param("flag", param_type::boolean, "a boolean");
    flag.default_value = false;
    toy.params.push_back(flag);
    param_def note = param("note", param_type::string, "free text, not in the id");
    note.default_value = "hello";
    note.in_id = false;
    toy.params.push_back(note);
    param_def count = param("count", param_type::integer, "at most 8");
    count.default_value = 2;
    count.max = 8;
    toy.params.push_back(count);
  }
  return {matmul, memory, toy};
}

}  // namespace cudabench::test
