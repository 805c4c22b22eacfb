// Kind `resnet50` (src/workloads/resnet50/): torchvision ResNet-50 inference on cuDNN.
#include "kinds.hpp"

namespace cudabench::kinds {
namespace {

kind_schema schema() {
  kind_schema s;
  s.kind = "resnet50";
  s.description =
      "torchvision ResNet-50 (v1.5) inference on cuDNN: batch-norm folded, conv+bias(+residual)+ReLU fused, "
      "cuBLASLt fc, CUDA graph";
  param_def dtype =
      make_param("dtype", param_type::string, "fp16: NHWC on tensor cores; fp32: NCHW, true fp32 (no TF32)");
  dtype.default_value = "fp16";
  dtype.choices = {"fp16", "fp32"};
  param_def batch = make_param("batch", param_type::integer, "images per forward pass");
  batch.required = true;
  batch.min = 1;
  batch.max = 4096;
  param_def size = make_param("image_size", param_type::integer, "input height and width in pixels (a multiple of 32)");
  size.default_value = 224;
  size.min = 32;
  size.max = 1024;
  param_def weights = make_param("weights", param_type::string,
                                 "`random` (seeded) or a .safetensors file with torchvision resnet50 state_dict names");
  weights.default_value = "random";
  param_def tune =
      make_param("tune", param_type::boolean, "time cuDNN's algorithms (cudnnFind) instead of its heuristics");
  tune.default_value = false;
  s.params = {dtype, batch, size, weights, tune};
  // Checked by the suite parser (kind_rules.hpp) as well as by the workload, so validate refuses them too.
  kind_rule multiple;
  multiple.type = rule_type::multiple_of;
  multiple.param = "image_size";
  multiple.n = 32;
  multiple.why = "ResNet-50 halves the image five times";
  kind_rule file;
  file.type = rule_type::keyword_or_file;
  file.param = "weights";
  file.keywords = {"random"};
  file.format = file_format::safetensors;
  s.rules = {multiple, file};
  return s;
}

noise_model noise(const std::string& metric, const nlohmann::ordered_json&) {
  // throughput: rounds 0.05-0.16%, sessions 0.3-0.5%; first inference 20% / 20%
  return metric == "first_inference_ms" ? noise_model{0.21, 0.20} : noise_model{0.002, 0.005};
}

}  // namespace

kind_description resnet50() {
  return {schema(),
          {"resnet50", {row_part("dtype"), row_part("batch", "batch "), row_part("image_size", "", "px", "224")}},
          noise};
}

}  // namespace cudabench::kinds
