// Workload kind `llm_decode`: greedy generation with a Llama-family decoder at batch 1, on
// cudabench's own kernels (kernels/llm_decode/) and cuBLASLt.
//
// One run = one generate to max_length tokens: prefill of the seeded prompt (cuBLASLt GEMMs +
// causal attention) producing the first token, then max_length - prompt_tokens - 1 replays of a
// captured decode-step graph (fused GEMVs, flash-decoding, device argmax; kernels chained with
// programmatic dependent launch where the driver supports it in graphs); no host sync inside.
// Events recorded inside run() give time to first token and decode time for each repetition.
//
// Metrics (headline first): decode_tokens_per_s, tpot_ms, ttft_ms (5 samples each, from the last
// run of each repetition), total_ms (the harness's per-run time), bandwidth_gbps (weights + KV
// bytes read per decode step / tpot), peak_memory_gb and weights_gb (one sample each), and where
// energy was measured j_per_token (a whole generate's energy / generated tokens, energy_metrics.hpp).
//
// Validation: a model small enough for the CPU reference is checked itself (first-step logits and
// greedy tokens vs a double-precision reference on the same weights); a bigger one validates a
// small "shadow" config (its head_dim, GQA ratio, RoPE theta, dtype) through the same kernels
// against the reference at the same prompt length (up to 2048 positions), then sanity-checks its
// own full run (finite logits, ids in range).
#pragma once
#include <memory>

#include "cudabench/gpu/workload.hpp"

namespace cudabench {

std::unique_ptr<workload> make_llm_decode(const workload_spec& spec);

}  // namespace cudabench
