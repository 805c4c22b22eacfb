// Kind `transformer_memory` (src/workloads/transformer_memory/): peak memory and time of one
// torch.nn.Transformer forward (eval, or train with autograd's saved tensors, optionally with the
// backward).
#include "kinds.hpp"

namespace cudabench::kinds {
namespace {

kind_schema schema() {
  kind_schema s;
  s.kind = "transformer_memory";
  s.description =
      "Peak memory and time of one torch.nn.Transformer forward (d_model 512, 8 heads, 6+6 layers, ff 2048, "
      "post-norm, ReLU, no masks, batch_first) on batch x seq_len source and target tokens: in eval mode (inference), "
      "or in training mode with autograd on (train: dropout, every tensor the backward needs kept; backward: "
      "forward + backward, every parameter's gradient)";
  param_def batch = make_param("batch", param_type::integer, "sequences per forward pass");
  batch.required = true;
  batch.min = 1;
  batch.max = 65535;
  param_def seq = make_param("seq_len", param_type::integer, "source and target length in tokens", 512);
  seq.min = 1;
  seq.max = 65536;
  param_def dtype =
      make_param("dtype", param_type::string, "weights and activations (fp16: fp32 accumulation)", "fp32");
  dtype.choices = {"fp32", "fp16"};
  param_def weights =
      make_param("weights", param_type::string,
                 "`random` (seeded) or a .safetensors file of torch.nn.Transformer's state_dict (F32)", "random");
  weights.in_id = false;  // weights change neither the time nor the memory measured
  // No defaults: a row without them is today's inference row, with today's id.
  param_def mode = make_param("mode", param_type::string,
                              "inference (eval, no_grad; the default) or train (training mode, autograd on: "
                              "dropout, and every tensor the backward would need kept until the end)");
  mode.choices = {"inference", "train"};
  param_def dropout = make_param("dropout", param_type::number,
                                 "mode train: dropout probability, 0 <= p <= 0.99 (default 0.1, torch's)");
  dropout.min = 0;
  dropout.max = 0.99;
  // No default either: rows without it keep their ids (and it means false).
  param_def backward = make_param("backward", param_type::boolean,
                                  "mode train: each repetition is forward + backward of sum(out * G) for a fixed "
                                  "seeded G, every parameter's gradient (default false)");
  param_def mem_limit =
      make_param("mem_limit", param_type::bytes,
                 "this row's device-memory cap, e.g. 24GiB: allocations past it fail as status oom, as under "
                 "--mem-limit (the smaller of the two applies)");
  mem_limit.min = 1;
  s.params = {batch, seq, dtype, mode, dropout, backward, weights, mem_limit};
  // Checked by the suite parser (kind_rules.hpp), so validate refuses a missing file too.
  kind_rule file;
  file.type = rule_type::keyword_or_file;
  file.param = "weights";
  file.keywords = {"random"};
  file.format = file_format::safetensors;
  // The backward reads what train mode keeps, and its kernels are fp32: refused by validate, not
  // first by run.
  kind_rule needs_train;
  needs_train.type = rule_type::one_of;
  needs_train.param = "mode";
  needs_train.keywords = {"train"};
  needs_train.when_param = "backward";
  needs_train.when_value = "true";
  needs_train.why = "the backward reads the tensors train mode keeps";
  kind_rule needs_fp32 = needs_train;
  needs_fp32.param = "dtype";
  needs_fp32.keywords = {"fp32"};
  needs_fp32.why = "the backward is implemented in fp32 only";
  s.rules = {file, needs_train, needs_fp32};
  return s;
}

// Rounds 0.1-0.2%, sessions 0.05-0.1% except batch 8 (11.5%: its attention kernel changed between
// the sessions, so that row's prior counts a real change as noise).
noise_model noise(const std::string&, const nlohmann::ordered_json&) { return {0.002, 0.002}; }

}  // namespace

kind_description transformer_memory() {
  return {schema(),
          {"transformer_memory",
           {row_part("dtype"), row_part("batch", "batch "), row_part("seq_len", "seq "),
            row_part("mode", "", "", "inference"), row_part("dropout", "dropout "),
            row_part("backward", "backward ", "", "false"), row_part_bytes_prefixed("mem_limit", "cap ")}},
          noise};
}

}  // namespace cudabench::kinds
