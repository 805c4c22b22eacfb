// Kind `train_step` (src/workloads/train_step/): one mixed-precision training step of an MLP.
#include "kinds.hpp"

namespace cudabench::kinds {
namespace {

kind_schema schema() {
  kind_schema s;
  s.kind = "train_step";
  s.description =
      "One mixed-precision training step (forward, MSE loss, backward, dynamic loss scaling, AdamW on fp32 master "
      "weights) of a bias-free ReLU MLP, layers x Linear(hidden, hidden), on a fixed synthetic regression target";
  param_def dtype =
      make_param("dtype", param_type::string, "compute type of weight copies, activations and gradients", "fp16");
  dtype.choices = {"fp16", "bf16"};
  param_def layers = make_param("layers", param_type::integer, "Linear(hidden, hidden) layers", 8);
  layers.min = 1;
  layers.max = 1024;
  param_def hidden = make_param("hidden", param_type::integer, "width of every layer", 8192);
  hidden.min = 8;
  hidden.max = 65536;
  param_def batch = make_param("batch", param_type::integer, "samples per step", 2048);
  batch.min = 1;
  batch.max = 1 << 20;
  s.params = {dtype, layers, hidden, batch};
  return s;
}

noise_model noise(const std::string&, const nlohmann::ordered_json&) {
  return {0.008, 0.027};  // rounds 0.2-0.7%, sessions 0.2-2.6%
}

}  // namespace

kind_description train_step() {
  return {
      schema(),
      {"train_step",
       {row_part("dtype"), row_part("layers", "layers "), row_part("hidden", "hidden "), row_part("batch", "batch ")}},
      noise};
}

}  // namespace cudabench::kinds
