// See compare_parts.hpp (pool_round_noise) and pooled_noise.hpp: a comparison's rows as evidence.
#include "compare_parts.hpp"
#include "cudabench/pooled_noise.hpp"

namespace cudabench::compare_detail {

int pool_round_noise(std::vector<compare_row>& rows, std::vector<noise_model>& noise) {
  std::vector<round_evidence> evidence(rows.size());
  for (std::size_t r = 0; r < rows.size(); ++r) {
    evidence[r].kind = rows[r].kind;
    for (const compare_cell& c : rows[r].cells)  // within each file: its rounds share the file's session
      if (c.present && c.state == status::ok) add_round_evidence(evidence[r], c.round_medians);
  }
  const int pooled = cudabench::pool_round_noise(evidence, noise);
  for (std::size_t r = 0; r < rows.size(); ++r) rows[r].noise = noise[r];
  return pooled;
}

}  // namespace cudabench::compare_detail
