// See validate.hpp.
#include "workloads/llm_decode/validate.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "kernels/common/random_fill.cuh"

namespace cudabench::llm {

double logits_tolerance(dtype d) { return d == dtype::fp16 ? 2e-2 : 6e-2; }

std::vector<std::int32_t> seeded_prompt(std::uint64_t seed, int count, int vocab) {
  std::vector<std::int32_t> ids(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i)
    ids[i] = static_cast<std::int32_t>(kernels::splitmix64(seed * 0x2545f4914f6cdd1dull + 0x70726f6d7074ull + i) %
                                       static_cast<std::uint64_t>(vocab));
  return ids;
}

validation_outcome compare_with_reference(const std::vector<float>& gpu, const std::vector<std::int32_t>& gpu_generated,
                                          const reference_run& ref, double tolerance, const std::string& what) {
  validation_outcome v;
  v.tolerance = tolerance;
  if (gpu.size() != ref.first_logits.size()) {
    v.message =
        fmt::format("{}: {} logits from the GPU, {} from the reference", what, gpu.size(), ref.first_logits.size());
    return v;
  }
  double scale = 0.0, worst = 0.0;
  std::size_t worst_at = 0;
  bool finite = true;
  for (std::size_t i = 0; i < gpu.size(); ++i) {
    scale = std::max(scale, std::abs(ref.first_logits[i]));
    if (!std::isfinite(gpu[i])) finite = false;
    const double d = std::abs(static_cast<double>(gpu[i]) - ref.first_logits[i]);
    if (!(d <= worst)) worst = d, worst_at = i;  // NaN lands here too
  }
  if (!(scale > 0)) scale = 1.0;
  v.max_rel_error = finite ? worst / scale : INFINITY;
  const std::string logits_msg = fmt::format(
      "{}: first-step logits max |gpu - ref| / max|ref| = {:.3g} (at id {}: {:.6g} vs {:.6g}; max|ref| {:.4g}; "
      "tolerance {:.3g})",
      what, v.max_rel_error, worst_at, gpu[worst_at], ref.first_logits[worst_at], scale, tolerance);
  if (!finite || v.max_rel_error > tolerance) {
    v.message = logits_msg;
    return v;
  }

  const double tie = tolerance * scale;
  const std::size_t n = std::min(gpu_generated.size(), ref.generated.size());
  std::size_t compared = 0;
  std::string tail;
  for (std::size_t i = 0; i < n; ++i) {
    if (gpu_generated[i] == ref.generated[i]) {
      ++compared;
      continue;
    }
    if (ref.top2_gap[i] <= tie) {
      tail = fmt::format(
          ", then a near tie at step {} (reference top-2 gap {:.3g} <= {:.3g}: gpu {}, ref {}); "
          "later steps not compared",
          i, ref.top2_gap[i], tie, gpu_generated[i], ref.generated[i]);
      break;
    }
    v.message = fmt::format("{}; greedy token {} differs: gpu {} vs reference {} (reference top-2 gap {:.3g} > {:.3g})",
                            logits_msg, i, gpu_generated[i], ref.generated[i], ref.top2_gap[i], tie);
    return v;
  }
  v.passed = true;
  v.message = fmt::format("{}; greedy tokens identical for {}/{} steps{}", logits_msg, compared, n, tail);
  return v;
}

validation_outcome validate_engine(engine& e, const weight_source& source, const std::vector<std::int32_t>& prompt,
                                   int check_tokens, cudaStream_t stream, const std::string& what) {
  const generate_shape& g = e.shape();
  e.set_prompt(prompt);
  e.prefill(stream);
  const std::vector<float> first = e.read_logits(stream);
  e.decode(g.decode_steps(), stream);
  const std::vector<float> last = e.read_logits(stream);
  const std::vector<std::int32_t> tokens = e.read_tokens(stream);

  validation_outcome sane = sanity_check(last, tokens, e.config().vocab_size, what);
  if (!sane.passed) return sane;
  const int n = std::min(check_tokens, g.max_length - g.prompt_tokens);
  const std::vector<std::int32_t> generated(tokens.begin() + g.prompt_tokens, tokens.begin() + g.prompt_tokens + n);
  const host_weights host = load_host_weights(e.layout(), source, e.type());
  const reference_run ref = reference_generate(e.config(), host, prompt, n);
  return compare_with_reference(first, generated, ref, logits_tolerance(e.type()), what);
}

validation_outcome sanity_check(const std::vector<float>& logits, const std::vector<std::int32_t>& tokens, int vocab,
                                const std::string& what) {
  validation_outcome v;
  v.tolerance = 0;
  for (std::size_t i = 0; i < logits.size(); ++i)
    if (!std::isfinite(logits[i])) {
      v.max_rel_error = INFINITY;
      v.message = fmt::format("{}: logit {} of the last step is {}", what, i, logits[i]);
      return v;
    }
  for (std::size_t i = 0; i < tokens.size(); ++i)
    if (tokens[i] < 0 || tokens[i] >= vocab) {
      v.max_rel_error = INFINITY;
      v.message = fmt::format("{}: token {} is {}, outside the vocabulary [0, {})", what, i, tokens[i], vocab);
      return v;
    }
  v.passed = true;
  v.message = fmt::format("{}: last-step logits finite, all {} token ids inside the vocabulary", what, tokens.size());
  return v;
}

}  // namespace cudabench::llm
