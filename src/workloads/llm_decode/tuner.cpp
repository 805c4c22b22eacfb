// See tuner.hpp.
#include "workloads/llm_decode/tuner.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cudabench/errors.hpp"
#include "cudabench/gpu/cuda_check.hpp"
#include "cudabench/gpu/timing.hpp"
#include "cudabench/gpu/tuner_timer.hpp"
#include "cudabench/pick_fastest.hpp"
#include "cudabench/tuner_measure.hpp"
#include "kernels/llm_decode/gemv.cuh"

namespace cudabench::llm {

namespace k = cudabench::kernels::llm_decode;

int smallest_decode_chunk(int max_len) {
  int chunk = 16;
  while ((max_len + chunk - 1) / chunk > 64) chunk *= 2;
  return chunk;
}

namespace {

// One variant number of CUDABENCH_LLM_GEMV (`env` is the whole value, for the message).
int parse_variant(const std::string& text, const char* env) {
  char* rest = nullptr;
  const long v = std::strtol(text.c_str(), &rest, 10);
  if (text.empty() || *rest != '\0' || v < 0 || v >= k::kGemvVariants)
    throw input_error(
        fmt::format("CUDABENCH_LLM_GEMV={}: \"{}\" is not a GEMV variant (0..{})", env, text, k::kGemvVariants - 1));
  return static_cast<int>(v);
}

// CUDABENCH_LLM_GEMV=SITE:V[,SITE:V...]: sets those sites' variants in `out`; returns which.
std::array<bool, kGemvSites> parse_site_forcing(const char* env, gemv_tuning& out) {
  std::array<bool, kGemvSites> pinned{};
  const std::string all = env;
  for (std::size_t pos = 0;;) {  // empty items (a trailing comma) are errors too
    const std::size_t comma = all.find(',', pos);
    const std::string item = all.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    const std::size_t colon = item.find(':');
    const std::string name = item.substr(0, colon);
    const auto* site = std::find(std::begin(kSiteNames), std::end(kSiteNames), name);
    if (colon == std::string::npos || site == std::end(kSiteNames))
      throw input_error(fmt::format("CUDABENCH_LLM_GEMV={}: \"{}\" is not SITE:VARIANT with SITE one of {}", env, item,
                                    fmt::join(kSiteNames, ", ")));
    const auto i = static_cast<std::size_t>(site - std::begin(kSiteNames));
    out.variant[i] = parse_variant(item.substr(colon + 1), env);
    pinned[i] = true;
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return pinned;
}

}  // namespace

// Setup-time autotuning of the GEMV launch shape per call site: each variant runs the site's
// GEMV over every layer's matrix (different weights each launch, so the timing streams from
// DRAM, not from the 50 MB L2) a few rounds, timed as graph replays; the fastest round wins. All
// variants compute the same thing (tests/gpu/test_llm_kernels.cpp checks each against the CPU),
// so the choice only moves time. Llama-2-7B: 6 variants x 5 rounds x ~13 GB / 4 TB/s ~ 100 ms.
// Each site is timed after itself, not after its real predecessor: variant 6's prefetch, which
// fills the window of a slow predecessor (the attention before o_proj), cannot show here, so it
// is not a candidate (kGemvTunedVariants); forcing it is how it is measured (on the H200 it made
// decode 2.3% slower at o_proj, so nothing picks it by default).
// CUDABENCH_LLM_GEMV=<variant> skips the timing and uses that variant everywhere;
// CUDABENCH_LLM_GEMV=SITE:V[,SITE:V] forces only the sites named (qkv, o, gate_up, down, lm_head).
gemv_tuning tune_gemv_variants(const nlohmann::ordered_json& forced, int num_layers, cudaStream_t s,
                               const enqueue_site_fn& enqueue_site, const clear_scratch_fn& clear_scratch) {
  gemv_tuning out;
  std::array<bool, kGemvSites> pinned{};  // sites forced by CUDABENCH_LLM_GEMV=SITE:V
  if (const char* env = std::getenv("CUDABENCH_LLM_GEMV"); env && *env) {
    if (std::strchr(env, ':') == nullptr) {
      const int v = parse_variant(env, env);
      for (int& site : out.variant) site = v;
      out.summary = fmt::format("forced to {} by CUDABENCH_LLM_GEMV", k::gemv_variant_name(v));
      return out;
    }
    // SITE:V[,SITE:V...]: only those sites forced, the rest tuned below. The verdict tests plant
    // a slowdown of a few percent this way (one site's slowest variant), smaller than forcing all.
    pinned = parse_site_forcing(env, out);
  }
  if (const auto it = forced.find("gemv"); it != forced.end()) {
    // Replay (`--tuning-from`): every site's recorded variant, or an error naming what is missing.
    for (int site = 0; site < kGemvSites; ++site) {
      const auto v = it->find(kSiteNames[site]);
      if (v == it->end() || !v->is_number_integer() || v->get<int>() < 0 || v->get<int>() >= k::kGemvVariants)
        throw input_error(fmt::format("--tuning-from: llm tuning gemv.{} is missing or not a variant (0..{})",
                                      kSiteNames[site], k::kGemvVariants - 1));
      out.variant[site] = v->get<int>();
    }
    out.summary = "replayed from --tuning-from";
    return out;
  }
  clear_scratch(s);
  constexpr int kRounds = 5;
  for (int site = 0; site < kGemvSites; ++site) {
    if (pinned[site]) {
      out.summary += fmt::format("{}{} {} (forced by CUDABENCH_LLM_GEMV)", site == 0 ? "" : ", ", kSiteNames[site],
                                 k::gemv_variant_name(out.variant[site]));
      continue;
    }
    const int launches = site == site_lm_head ? 1 : num_layers;
    // Each variant's call (every layer's GEMV of this site) timed as replays of a captured graph
    // (tuner_timer.hpp): llama-tiny's GEMVs take ~2 us, and a loop of launches timed the host,
    // so its processes picked different variants and measured 5% apart.
    const std::vector<double> variant_ms =
        time_candidates(s, k::kGemvTunedVariants, kRounds, tuner_measure_ms(), [&](std::size_t v) {
          for (int l = 0; l < launches; ++l) enqueue_site(site, l, static_cast<int>(v), s);
        });
    out.variant[site] = static_cast<int>(pick_fastest(variant_ms));  // variant 0 first: ties keep the order
    out.summary +=
        fmt::format("{}{} {} ({:.1f} us)", site == 0 ? "" : ", ", kSiteNames[site],
                    k::gemv_variant_name(out.variant[site]), 1000.0 * variant_ms[out.variant[site]] / launches);
  }
  clear_scratch(s);
  CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(s));
  return out;
}

// Captures the decode graph for every candidate (attention split size x plain launches or
// programmatic dependent launch (launch.cuh), the latter where the driver takes it in a graph),
// times a few replays of each, interleaved, at a position halfway through the generation, and
// keeps the fastest. PDL overlaps each kernel's start with its predecessor's tail, but whether
// that wins depends on the driver and on how neighbouring kernels' blocks share the SMs.
// CUDABENCH_LLM_PDL=0 / =1 forces plain / PDL (PDL falls back to plain where unsupported);
// CUDABENCH_LLM_ATTN_CHUNK=<n> forces the split size (one of the candidates).
decode_graph_choice tune_decode_graph(const nlohmann::ordered_json& forced, int chunk0, int max_chunk,
                                      const generate_shape& shape, int* device_position, cudaStream_t s,
                                      const capture_step_fn& capture) {
  const char* env = std::getenv("CUDABENCH_LLM_PDL");
  bool force_plain = env && std::strcmp(env, "0") == 0;
  bool force_pdl = env && std::strcmp(env, "1") == 0;
  const auto replay = forced.find("graph");
  if (replay != forced.end()) {
    const auto pdl = replay->find("pdl");
    if (pdl == replay->end() || !pdl->is_boolean())
      throw input_error("--tuning-from: llm tuning graph.pdl is missing or not a boolean");
    force_pdl = pdl->get<bool>();
    force_plain = !force_pdl;
  }
  std::vector<int> chunks;
  for (int i = 0; i < kChunkCandidates; ++i)
    if (i == 0 || (chunk0 << i) <= max_chunk) chunks.push_back(chunk0 << i);
  if (const char* cenv = std::getenv("CUDABENCH_LLM_ATTN_CHUNK"); cenv && *cenv) {
    char* rest = nullptr;
    const long c = std::strtol(cenv, &rest, 10);
    if (*rest != '\0' || std::find(chunks.begin(), chunks.end(), c) == chunks.end())
      throw input_error(fmt::format("CUDABENCH_LLM_ATTN_CHUNK={}: not one of the split sizes {} for max_length {}",
                                    cenv, fmt::join(chunks, ", "), shape.max_length));
    chunks = {static_cast<int>(c)};
  } else if (replay != forced.end()) {
    const auto c = replay->find("attn_chunk");
    if (c == replay->end() || !c->is_number_integer() ||
        std::find(chunks.begin(), chunks.end(), c->get<int>()) == chunks.end())
      throw input_error(fmt::format("--tuning-from: llm tuning graph.attn_chunk is missing or not one of {}",
                                    fmt::join(chunks, ", ")));
    chunks = {c->get<int>()};
  }

  // Capture: PDL candidates first; if the driver refuses PDL in a graph, plain launches only.
  constexpr int kGraphCandidates = 2 * kChunkCandidates;
  graph_exec graphs[kGraphCandidates];
  bool programmatic[kGraphCandidates] = {};
  int chunk[kGraphCandidates] = {};
  const int n = static_cast<int>(chunks.size());
  bool have_pdl = false;
  for (int i = 0; i < 2 * n; ++i) {
    const bool pdl = i < n;
    programmatic[i] = pdl;
    chunk[i] = chunks[i % n];
    if (pdl && (force_plain || (i > 0 && !have_pdl))) continue;
    if (!pdl && force_pdl && have_pdl) continue;
    if (pdl) {
      try {
        capture(graphs[i], chunk[i], true);
        have_pdl = true;
      } catch (const cuda_error&) {
        graphs[i].reset();
        (void)cudaGetLastError();  // not supported here: plain launches only
      }
    } else {
      capture(graphs[i], chunk[i], false);
    }
  }

  std::vector<int> live;
  for (int i = 0; i < 2 * n; ++i)
    if (graphs[i]) live.push_back(i);
  int chosen = live.front();
  std::string timings;
  if (live.size() > 1) {
    // Replays around the middle of the generation (attention cost grows with the position);
    // the prefill later rewrites every cache row and token they touch, and the argmax never
    // advances past max_length - 1, so any number of replays is safe.
    const int steps = std::min(8, std::max(1, shape.max_length - 1));
    const int start = std::max(0, (shape.prompt_tokens + shape.max_length) / 2 - steps);
    // Round 0 warms up (the first replay uploads the graph) and sizes the rest: each later
    // measurement replays at least 2 ms of steps, so a 75 us step (llama-tiny) is not judged on
    // 0.6 ms, where launch jitter decided between attention splits from process to process.
    constexpr int kRounds = 4;
    std::vector<int> replays(2 * n, steps);
    std::vector<float> best(2 * n, 0.0f);
    for (int round = 0; round <= kRounds; ++round) {
      for (int i : live) {
        CUDABENCH_CHECK_CUDA(cudaMemcpyAsync(device_position, &start, sizeof(int), cudaMemcpyHostToDevice, s));
        const float ms = time_enqueued_ms(s, replays[i], [&] { graphs[i].launch(s); }) / replays[i];
        if (round == 0) replays[i] = std::clamp(static_cast<int>(std::ceil(2.0 / std::max(ms, 1e-4f))), steps, 512);
        if (round > 0 && (round == 1 || ms < best[i])) best[i] = ms;
      }
    }
    std::vector<double> live_ms;
    for (int i : live) live_ms.push_back(best[i]);
    chosen = live[pick_fastest(live_ms)];  // PDL and the smallest split first: ties keep the order
    for (int i : live) {
      timings += fmt::format("{}{} chunk {} {:.3f} ms", timings.empty() ? "" : ", ", programmatic[i] ? "PDL" : "plain",
                             chunk[i], best[i]);
    }
    timings = " (timed per step: " + timings + ")";
  }
  for (int i = 0; i < 2 * n; ++i)
    if (i != chosen) graphs[i].reset();
  std::string how = programmatic[chosen] ? "programmatic dependent launch" : "plain launches";
  if (replay != forced.end()) how += " (replayed from --tuning-from)";
  else if (force_plain || (force_pdl && have_pdl)) how += " (forced)";
  else if (!have_pdl) how += " (programmatic launch not supported here)";

  decode_graph_choice out;
  out.graph = std::move(graphs[chosen]);
  out.programmatic = programmatic[chosen];
  out.chunk = chunk[chosen];
  out.summary = fmt::format("decode graph with {}, attention split {} positions{}", how, chunk[chosen], timings);
  return out;
}

}  // namespace cudabench::llm
