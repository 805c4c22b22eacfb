// The kinds the suite fuzzer parses against: the parameter shapes of the real registry's kinds
// (which live in the GPU library), every parameter type, and the rules that open no files (the
// context rule only stats a non-preset model name).
#pragma once
#include "cudabench/kind_schema.hpp"

namespace cudabench::fuzz {

inline kind_catalog catalog() {
  kind_schema matmul{"matmul", "GEMM", {}, {}};
  param_def dtype = make_param("dtype", param_type::string, "element type");
  dtype.required = true;
  dtype.choices = {"fp32", "tf32", "fp16", "bf16", "fp8"};
  matmul.params.push_back(dtype);
  for (const char* dim : {"m", "n", "k", "batch"}) {
    param_def p = make_param(dim, param_type::integer, "dimension");
    p.required = dim[1] == '\0' && dim[0] != 'b';
    p.min = 1;
    p.max = 2147483647.0;
    matmul.params.push_back(p);
  }

  kind_schema memory{"memory_bandwidth", "copies", {}, {}};
  param_def op = make_param("op", param_type::string, "operation");
  op.required = true;
  op.choices = {"d2d", "h2d_pinned", "memset"};
  memory.params.push_back(op);
  param_def bytes = make_param("bytes", param_type::bytes, "size");
  bytes.required = true;
  bytes.min = 1024;
  memory.params.push_back(bytes);

  kind_schema llm{"llm_decode", "decode", {}, {}};
  param_def model = make_param("model", param_type::string, "preset", "llama-tiny");
  llm.params.push_back(model);
  param_def prompt = make_param("prompt_tokens", param_type::integer, "prompt", 128);
  prompt.min = 1;
  prompt.max = 1 << 20;
  llm.params.push_back(prompt);
  param_def length = make_param("max_length", param_type::integer, "total", 256);
  length.min = 3;
  length.max = 1 << 20;
  llm.params.push_back(length);
  param_def scale = make_param("scale", param_type::number, "a number", 1.0);
  scale.min = 0;
  scale.max = 10;
  llm.params.push_back(scale);
  param_def flag = make_param("flag", param_type::boolean, "a boolean", false);
  flag.in_id = false;
  llm.params.push_back(flag);
  kind_rule at_least;
  at_least.type = rule_type::at_least_plus;
  at_least.param = "max_length";
  at_least.other = "prompt_tokens";
  at_least.n = 2;
  kind_rule multiple;
  multiple.type = rule_type::multiple_of;
  multiple.param = "prompt_tokens";
  multiple.n = 8;
  multiple.when_param = "flag";
  multiple.when_value = "true";
  kind_rule context;  // presets come from memory; other names only cost a stat
  context.type = rule_type::within_model_context;
  context.param = "max_length";
  context.other = "model";
  llm.rules = {at_least, multiple, context};
  return {matmul, memory, llm};
}

}  // namespace cudabench::fuzz
