// The catalog the suite tests parse against: the built-in kinds themselves (src/kinds, host-only,
// so no copy of their schemas here), then two test-only kinds: `toy`, which covers the parameter
// types and options the built-in kinds leave out, and `ruled`, which carries one rule of each type
// (kind_rules.hpp) on parameters of its own.
#pragma once
#include "cudabench/kind_description.hpp"
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
  kind_catalog kinds = builtin_kinds();
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
  // `ruled`: one of each kind_rule type, shaped like the real kinds' rules (llm_decode's lengths,
  // model and checkpoint; resnet50's image size and weights file).
  kind_schema ruled{"ruled", "every rule type", {}};
  {
    param_def size = param("size", param_type::integer, "a multiple of 32");
    size.default_value = 224;
    ruled.params.push_back(size);
    param_def prompt = param("prompt", param_type::integer, "prompt length");
    prompt.default_value = 128;
    ruled.params.push_back(prompt);
    param_def length = param("length", param_type::integer, "at least prompt + 2, within the model");
    length.default_value = 256;
    ruled.params.push_back(length);
    param_def model = param("model", param_type::string, "a preset or a directory");
    model.default_value = "llama-tiny";
    ruled.params.push_back(model);
    param_def source = param("source", param_type::string, "random or checkpoint");
    source.default_value = "random";
    source.choices = {"random", "checkpoint"};
    ruled.params.push_back(source);
    param_def weights = param("weights", param_type::string, "random or a safetensors file");
    weights.default_value = "random";
    ruled.params.push_back(weights);

    kind_rule multiple;
    multiple.type = rule_type::multiple_of;
    multiple.param = "size";
    multiple.n = 32;
    kind_rule at_least;
    at_least.type = rule_type::at_least_plus;
    at_least.param = "length";
    at_least.other = "prompt";
    at_least.n = 2;
    at_least.why = "decode needs a step";
    kind_rule model_dir;
    model_dir.type = rule_type::keyword_or_directory;
    model_dir.param = "model";
    model_dir.keywords = {"llama-tiny", "llama-2-7b"};
    model_dir.files = {"config.json"};
    model_dir.format = file_format::llm_config;
    kind_rule checkpoint;
    checkpoint.type = rule_type::keyword_or_directory;
    checkpoint.param = "model";
    checkpoint.files = {"model.safetensors", "model.safetensors.index.json"};
    checkpoint.format = file_format::safetensors;
    checkpoint.when_param = "source";
    checkpoint.when_value = "checkpoint";
    kind_rule context;
    context.type = rule_type::within_model_context;
    context.param = "length";
    context.other = "model";
    kind_rule file;
    file.type = rule_type::keyword_or_file;
    file.param = "weights";
    file.keywords = {"random"};
    file.format = file_format::safetensors;
    ruled.rules = {multiple, at_least, model_dir, checkpoint, context, file};
  }
  kinds.push_back(toy);
  kinds.push_back(ruled);
  return kinds;
}

}  // namespace cudabench::test
