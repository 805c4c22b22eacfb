// Which parameters name each kind's workloads in compare tables, reports, fleets and the history
// (row_names.hpp). One entry per kind in src/workloads/registry.cpp; a kind without one is named
// by its workload ids.
#include "cudabench/row_names.hpp"

namespace cudabench {

const std::vector<kind_row_name>& kind_row_names() {
  static const std::vector<kind_row_name> names = {
      {"matmul", {row_part("dtype"), row_part_joined({"m", "n", "k"}, "×", "³"), row_part("batch", "batch ", "", "1")}},
      {"memory_bandwidth", {row_part("op"), row_part_bytes("bytes")}},
      {"llm_decode",
       {row_part_base_name("model"), row_part("dtype"), row_part_joined({"prompt_tokens", "max_length"}, "→"),
        row_part("batch", "batch ", "", "1")}},
      {"resnet50", {row_part("dtype"), row_part("batch", "batch "), row_part("image_size", "", "px", "224")}},
      {"transformer_memory",
       {row_part("dtype"), row_part("batch", "batch "), row_part("seq_len", "seq "),
        row_part("mode", "", "", "inference"), row_part("dropout", "dropout "),
        row_part_bytes_prefixed("mem_limit", "cap ")}},
      {"train_step",
       {row_part("dtype"), row_part("layers", "layers "), row_part("hidden", "hidden "), row_part("batch", "batch ")}},
  };
  return names;
}

}  // namespace cudabench
