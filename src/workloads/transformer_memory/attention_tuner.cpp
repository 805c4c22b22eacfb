// See attention_tuner.hpp.
#include "workloads/transformer_memory/attention_tuner.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

#include "cudabench/gpu/cuda_check.hpp"
#include "cudabench/gpu/timing.hpp"
#include "cudabench/pick_fastest.hpp"

namespace cudabench::transformer {
namespace {

using kernels::transformer_memory::attention_variant;

constexpr attention_variant k_candidates[] = {attention_variant::tf32x3_flash, attention_variant::tf32x3_two_pass,
                                              attention_variant::cuda_core};
constexpr int k_reps = 3;
constexpr double k_max_rel_diff = 1e-4;

// Output rows of the first sequence (all heads), after running `v` on it.
std::vector<float> first_sequence_output(kernels::transformer_memory::attention_args a, attention_variant v,
                                         cudaStream_t s) {
  a.batch = 1;
  a.variant = v;
  kernels::transformer_memory::attention_forward(a, s);
  std::vector<float> out(static_cast<std::size_t>(a.sq) * a.ldo);
  CUDABENCH_CHECK_CUDA(cudaMemcpyAsync(out.data(), a.o, out.size() * sizeof(float), cudaMemcpyDeviceToHost, s));
  CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(s));
  return out;
}

// Only the head columns of each row are outputs; columns past heads*head_dim (if ldo is wider) are
// not compared.
double max_rel_diff(const std::vector<float>& got, const std::vector<float>& ref,
                    const kernels::transformer_memory::attention_args& a) {
  double worst = 0;
  const std::int64_t cols = static_cast<std::int64_t>(a.heads) * a.head_dim;
  for (std::int64_t r = 0; r < a.sq; ++r)
    for (std::int64_t c = 0; c < cols; ++c) {
      const double g = got[r * a.ldo + c], f = ref[r * a.ldo + c];
      if (!std::isfinite(g)) return std::numeric_limits<double>::infinity();
      worst = std::max(worst, std::fabs(g - f) / std::max(std::fabs(f), 1.0));
    }
  return worst;
}

// Weighted milliseconds of one forward pass's attention calls with variant `v`.
double time_variant(const std::vector<attention_workload>& shapes, attention_variant v, cudaStream_t s) {
  double total = 0;
  for (const attention_workload& w : shapes) {
    kernels::transformer_memory::attention_args a = w.args;
    a.variant = v;
    kernels::transformer_memory::attention_forward(a, s);  // warm-up: first-launch costs are not the kernel's
    const float ms = time_enqueued_ms(s, k_reps, [&] { kernels::transformer_memory::attention_forward(a, s); });
    total += static_cast<double>(ms) / k_reps * w.calls;
  }
  return total;
}

}  // namespace

attention_choice tune_attention(const std::vector<attention_workload>& shapes, cudaStream_t stream) {
  if (shapes.empty()) throw std::invalid_argument("tune_attention: no shapes");
  attention_choice best;
  std::vector<double> ms_of(std::size(k_candidates), std::numeric_limits<double>::infinity());
  const std::vector<float> ref = first_sequence_output(shapes.front().args, attention_variant::cuda_core, stream);
  for (std::size_t i = 0; i < std::size(k_candidates); ++i) {
    const attention_variant v = k_candidates[i];
    double diff = 0, ms = 0;
    try {
      if (v != attention_variant::cuda_core)
        diff = max_rel_diff(first_sequence_output(shapes.front().args, v, stream), ref, shapes.front().args);
      if (!(diff <= k_max_rel_diff)) {
        best.summary += fmt::format("{}: rejected (max rel diff {:.3g} vs cuda-core); ",
                                    kernels::transformer_memory::attention_variant_name(v), diff);
        continue;
      }
      ms = time_variant(shapes, v, stream);
    } catch (const std::invalid_argument& e) {  // the variant does not take this shape
      best.summary += fmt::format("{}: n/a ({}); ", kernels::transformer_memory::attention_variant_name(v), e.what());
      continue;
    }
    best.summary += fmt::format("{}: {:.3f} ms/forward (diff {:.2g}); ",
                                kernels::transformer_memory::attention_variant_name(v), ms, diff);
    ms_of[i] = ms;
  }
  // The shared tuner rule: candidates in preference order, ties (pick_fastest.hpp) keep the earlier one.
  best.variant = k_candidates[pick_fastest(ms_of)];
  best.summary += fmt::format("chose {}", kernels::transformer_memory::attention_variant_name(best.variant));
  return best;
}

}  // namespace cudabench::transformer
