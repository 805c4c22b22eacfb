// See prefill_tuner.hpp.
#include "workloads/llm_decode/prefill_tuner.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "cudabench/errors.hpp"
#include "cudabench/gpu/blaslt_algo.hpp"
#include "cudabench/gpu/cuda_check.hpp"
#include "cudabench/gpu/tuner_timer.hpp"
#include "cudabench/pick_fastest.hpp"
#include "cudabench/tuner_measure.hpp"

namespace cudabench::llm {
namespace {

constexpr int kMaxCandidates = 8;  // the heuristic's top 8, as many as the matmul kind's short list
constexpr int kPasses = 3;         // interleaved; each candidate keeps its best pass

nlohmann::ordered_json record(const cublasLtMatmulAlgo_t& algo, int candidate, int of) {
  nlohmann::ordered_json r = algo_config_json(algo);
  r["candidate"] = candidate;
  r["of"] = of;
  return r;
}

}  // namespace

prefill_tuning tune_prefill_gemms(const nlohmann::ordered_json& forced, lt_matmul* const (&gemms)[kPrefillSites],
                                  int num_layers, cudaStream_t s, const enqueue_prefill_fn& enqueue) {
  prefill_tuning out;
  const char* env = std::getenv("CUDABENCH_LLM_PREFILL_GEMM");
  if (env && *env && std::strcmp(env, "heuristic") != 0)
    throw input_error(fmt::format("CUDABENCH_LLM_PREFILL_GEMM={}: the only value is \"heuristic\"", env));
  const bool heuristic = env && *env;
  const auto replay = forced.find("prefill_gemm");
  const bool replaying = !forced.empty() && !heuristic;
  for (int site = 0; site < kPrefillSites; ++site) {
    lt_matmul& gemm = *gemms[site];
    cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
    const std::vector<cublasLtMatmulAlgo_t> candidates = gemm.candidates(kMaxCandidates, &st);
    if (candidates.empty())  // the plan was made with the heuristic's first, so this cannot happen
      throw cuda_error(fmt::format("cuBLASLt lists no algorithm for the prefill {} GEMM ({})", kPrefillSiteNames[site],
                                   cublasGetStatusName(st)));
    const int of = static_cast<int>(candidates.size());
    int chosen = 0;
    std::string how;
    if (heuristic || (replaying && replay == forced.end())) {
      how =
          heuristic ? "heuristic's first (CUDABENCH_LLM_PREFILL_GEMM)" : "heuristic's first (replayed record has none)";
    } else if (replaying) {
      const auto rec = replay->find(kPrefillSiteNames[site]);
      if (rec == replay->end() || !rec->is_object())
        throw input_error(fmt::format("--tuning-from: llm tuning prefill_gemm.{} is missing", kPrefillSiteNames[site]));
      chosen = find_recorded_algo(candidates, *rec);
      if (chosen < 0)
        throw input_error(
            fmt::format("--tuning-from: the recorded prefill {} algorithm {} is not among this build's {} candidates",
                        kPrefillSiteNames[site], rec->dump(), of));
      how = "replayed";
    } else {
      // Each candidate's call: this site's GEMM over every layer (DRAM-resident weights), timed
      // as replays of a captured graph (tuner_timer.hpp).
      const std::vector<double> ms = time_candidates(
          s, candidates.size(), kPasses, tuner_measure_ms(),
          [&](std::size_t i) {
            for (int l = 0; l < num_layers; ++l) CUDABENCH_CHECK_CUBLAS(enqueue(site, l, candidates[i], s));
          },
          [&](std::size_t i) { return enqueue(site, 0, candidates[i], s) == CUBLAS_STATUS_SUCCESS; });  // else skipped
      chosen = static_cast<int>(pick_fastest(ms));  // throws if none ran: the heuristic's first always runs
      how = fmt::format("{:.1f} us per layer vs the heuristic's first {:.1f}", 1000.0 * ms[chosen] / num_layers,
                        1000.0 * ms[0] / num_layers);
    }
    gemm.use(candidates[static_cast<std::size_t>(chosen)]);
    out.choices[kPrefillSiteNames[site]] = record(candidates[static_cast<std::size_t>(chosen)], chosen, of);
    out.summary +=
        fmt::format("{}{} candidate {} of {} ({})", site == 0 ? "" : ", ", kPrefillSiteNames[site], chosen, of, how);
  }
  CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(s));
  return out;
}

}  // namespace cudabench::llm
