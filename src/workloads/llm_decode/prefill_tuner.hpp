// Setup-time choice of the cuBLASLt algorithm of each prefill GEMM of the llm_decode engine
// (q/k/v, o_proj, gate/up, down_proj; one plan per site serves all layers).
//
// Why: the prefill of a short prompt is weight streaming (128 rows: every weight read once, as in
// a decode step), and cuBLASLt's heuristic ranks by a model of compute, not of bytes: its first
// pick for Llama-2-7B's o_proj at 128 rows ran at 53% of copy bandwidth where the other GEMMs ran
// at 81-85% (docs/llm-performance.md). As the matmul kind does, the heuristic's top candidates are
// timed on the real problem and the fastest kept (pick_fastest.hpp: the heuristic's order wins
// ties). Each candidate's call is that GEMM over every layer's weights, so the timing
// streams from DRAM as the prefill does (one layer's o_proj, 33.5 MB, would sit in the 50 MB L2).
// CUDABENCH_LLM_PREFILL_GEMM=heuristic keeps the heuristic's first everywhere (what builds before
// this tuner ran; an A/B of one binary against itself); `--tuning-from` replays the recorded
// configurations (a record without them, from an older build, means the heuristic's first).
#pragma once
#include <functional>
#include <string>

#include <cublasLt.h>
#include <cuda_runtime.h>
#include <nlohmann/json.hpp>

#include "cudabench/gpu/blaslt.hpp"

namespace cudabench::llm {

enum prefill_site { prefill_qkv, prefill_o, prefill_gate_up, prefill_down, kPrefillSites };
inline constexpr const char* kPrefillSiteNames[kPrefillSites] = {"qkv", "o", "gate_up", "down"};

// Enqueues site `site`'s GEMM of layer `layer` with `algo` on `stream`; returns cuBLASLt's status
// (a candidate may refuse to run).
using enqueue_prefill_fn =
    std::function<cublasStatus_t(int site, int layer, const cublasLtMatmulAlgo_t& algo, cudaStream_t stream)>;

struct prefill_tuning {
  nlohmann::ordered_json choices = nlohmann::ordered_json::object();  // site -> {candidate, of, config...}
  std::string summary;
};

// Chooses and sets (lt_matmul::use) the algorithm of each site's plan in `gemms`, which enqueue
// runs; `forced` is the engine's replayed tuning (its "prefill_gemm" object, if any).
prefill_tuning tune_prefill_gemms(const nlohmann::ordered_json& forced, lt_matmul* const (&gemms)[kPrefillSites],
                                  int num_layers, cudaStream_t stream, const enqueue_prefill_fn& enqueue);

}  // namespace cudabench::llm
