// Setup-time autotuning of the llm_decode step (engine.hpp says what is tuned): the launch variant
// of each decode GEMV call site, and which captured decode graph to keep (attention split size x
// plain launches or programmatic dependent launch). The engine owns the buffers and enqueues the
// kernels; these functions time what it enqueues, choose with the shared rule (pick_fastest.hpp),
// and read the overrides: CUDABENCH_LLM_GEMV, CUDABENCH_LLM_PDL, CUDABENCH_LLM_ATTN_CHUNK and the
// choices replayed from `--tuning-from`.
#pragma once
#include <functional>
#include <string>

#include <cuda_runtime.h>
#include <nlohmann/json.hpp>

#include "cudabench/gpu/cuda_handles.hpp"
#include "workloads/llm_decode/engine.hpp"

namespace cudabench::llm {

// The decode step's GEMV call sites; each gets its own tuned launch variant (gemv.cuh).
enum gemv_site { site_qkv, site_o, site_gate_up, site_down, site_lm_head, kGemvSites };
inline constexpr const char* kSiteNames[kGemvSites] = {"qkv", "o", "gate_up", "down", "lm_head"};

// Decode attention split sizes the setup tuner tries: the smallest power of two >= 16 positions
// per block (the attention kernel scores 16 keys per step) that keeps at most 64 splits (the
// merging block walks all splits per thread), and 2, 4 and 8 times that. Small chunks spread a
// short sequence over more blocks (less serial work per block), large ones do less merging (one
// split needs none); the workspace is sized for the first.
inline constexpr int kChunkCandidates = 4;
int smallest_decode_chunk(int max_len);

struct gemv_tuning {
  int variant[kGemvSites] = {};
  std::string summary;
};

// Enqueues on `stream` the decode step's GEMV at `site` for layer `layer` (ignored for lm_head)
// with launch variant `variant`.
using enqueue_site_fn = std::function<void(int site, int layer, int variant, cudaStream_t stream)>;
// Zeroes the activations the tuning launches read and write.
using clear_scratch_fn = std::function<void(cudaStream_t stream)>;

// The launch variant per GEMV call site: forced by CUDABENCH_LLM_GEMV, replayed from
// `forced["gemv"]`, or timed on `stream` over `num_layers` layers' weights.
gemv_tuning tune_gemv_variants(const nlohmann::ordered_json& forced, int num_layers, cudaStream_t stream,
                               const enqueue_site_fn& enqueue_site, const clear_scratch_fn& clear_scratch);

struct decode_graph_choice {
  graph_exec graph;
  bool programmatic = false;
  int chunk = 0;
  std::string summary;
};

// Captures into `graph` the decode step with attention split `chunk`, with programmatic dependent
// launch or plain launches; throws cuda_error where the driver refuses PDL in a graph.
using capture_step_fn = std::function<void(graph_exec& graph, int chunk, bool programmatic)>;

// The decode graph to keep: every candidate (split sizes from `chunk0`, see kChunkCandidates, up
// to `max_chunk`, x PDL or plain) captured and timed, or the forced / replayed one. The timing
// replays write `device_position`, tokens and cache rows; the caller restores its state afterwards.
decode_graph_choice tune_decode_graph(const nlohmann::ordered_json& forced, int chunk0, int max_chunk,
                                      const generate_shape& shape, int* device_position, cudaStream_t stream,
                                      const capture_step_fn& capture);

}  // namespace cudabench::llm
