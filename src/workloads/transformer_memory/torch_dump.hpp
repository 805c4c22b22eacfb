// A test hook for scripts/torch_match.py, which proves that transformer_memory computes what
// torch.nn.Transformer computes: with CUDABENCH_TRANSFORMER_DUMP=DIR set, the workload's verify()
// writes DIR/<row id>.safetensors after its full-size forward, holding everything PyTorch needs to
// run the same forward and what cudabench got:
//   the state_dict under torch's names (params.hpp's table), "src", "tgt", "output" (F32; an fp16
//   model's values widened), and in train mode with dropout > 0 every mask the forward drew (U8,
//   1 = kept) under the name of the torch module that draws it: "mask.<layer>.self_attn" and
//   "mask.<layer>.multihead_attn" [batch, heads, q, k] (SDPA's attention-probability dropout),
//   "mask.<layer>.dropout1/2/3" [batch, seq, d_model] and "mask.<layer>.dropout" [batch, seq, ff];
//   metadata: the shape, mode, dtype, dropout p, its float scale, the seed and the attention kernel.
//   Rows with backward: true also hold "grad_output" (G, the output's shape) and "grad.<name>" for
//   every parameter (F32): the gradients of sum(output * G) the row's backward computed
//   (metadata "backward": "yes").
// Host memory only, after the forward and outside the timed runs: the peak the harness measures
// and the timed path are unchanged. Meant for small batches (the masks are B*H*S*S bytes a layer).
#pragma once
#include <cctype>
#include <string>

namespace cudabench::transformer {

class model;

// The directory CUDABENCH_TRANSFORMER_DUMP names, or "" when unset or empty.
std::string torch_dump_dir();

// "transformer_memory/batch=2/mode=train" -> "transformer_memory_batch_2_mode_train.safetensors":
// ids hold '/' and '=', which a file name should not.
inline std::string torch_dump_file_name(const std::string& row_id) {
  std::string f = row_id;
  for (char& ch : f)
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '-') ch = '_';
  return f + ".safetensors";
}

// Writes the file described above for `m`, whose output() holds a finished forward. `row_id`
// goes into the metadata. Synchronous.
void dump_for_torch(const model& m, const std::string& path, const std::string& row_id);

}  // namespace cudabench::transformer
