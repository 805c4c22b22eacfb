// Where a Llama-2-7B decode step's time above the bandwidth floor goes. An experiment, not part of
// cudabench: it rebuilds the engine's decode step (src/workloads/llm_decode/engine.cpp,
// enqueue_decode_step) from the same kernels (GEMV variant 0, the fused attention with 16-position
// splits, PDL on), captures it as a graph and times replays, then removes one ingredient at a
// time and times again:
//   step           the engine's step (its time should match the suite's TPOT on the same card)
//   no-attention   without the 32 attention launches (rotary + append + split + merge)
//   no-norm        the qkv, gate/up and lm_head GEMVs stage x as given instead of RMS-normalising it
//   gemvs-only     no attention, no norm, no embedding/argmax: 129 GEMVs and their epilogues
// Outputs of the ablated steps are meaningless (weights are random; nothing is validated): only
// the times are read. Each mode's time is the median over interleaved rounds of 20 replays, the
// position reset to 128 before each round (so the attention sees 129..148 positions, as in the
// suite's 128 -> 256 row).
//   cmake --build build --target decode_anatomy && build/experiments/decode_anatomy [rounds]
// Environment, to try a change inside the same step: ANATOMY_O_VARIANT (the o_proj GEMV's variant,
// gemv.cuh; default 0) and ANATOMY_ATTN_CHUNK (positions per attention split; default 16).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "cudabench/gpu/cuda_check.hpp"
#include "experiments/step_timing.cuh"
#include "kernels/common/random_fill.cuh"
#include "kernels/llm_decode/argmax.cuh"
#include "kernels/llm_decode/attention_decode.cuh"
#include "kernels/llm_decode/embedding.cuh"
#include "kernels/llm_decode/gemv.cuh"
#include "kernels/llm_decode/launch.cuh"
#include "kernels/llm_decode/rope_kv.cuh"

namespace k = cudabench::kernels::llm_decode;
using T = __half;

namespace {

// Llama-2-7B.
constexpr int kLayers = 32, kHidden = 4096, kInter = 11008, kHeads = 32, kHeadDim = 128, kVocab = 32000;
constexpr int kQkvRows = 3 * kHidden, kMaxLen = 256, kPrompt = 128, kSteps = 20;

// An integer from the environment, or `fallback`; outside [lo, hi] is an error.
int env_int(const char* name, int fallback, int lo, int hi) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const long x = std::strtol(v, &end, 10);
  if (*end != '\0' || x < lo || x > hi) {
    std::fprintf(stderr, "decode_anatomy: %s=%s is not an integer in [%d, %d]\n", name, v, lo, hi);
    std::exit(2);
  }
  return static_cast<int>(x);
}

struct mode {
  const char* name;
  bool attention, norm, ends;  // ends: embedding + argmax
};

struct model {
  T *w = nullptr, *k_cache = nullptr, *v_cache = nullptr, *rope = nullptr;
  T *h = nullptr, *qkv = nullptr, *attn = nullptr, *act = nullptr;
  float *logits = nullptr, *part_o = nullptr, *part_ml = nullptr;
  std::int32_t* tokens = nullptr;
  int* pos = nullptr;
  unsigned* counters = nullptr;
  k::attn_decode_shape as;
  std::size_t embed = 0, lm_head = 0, final_norm = 0;
  struct layer {
    std::size_t in_norm, wqkv, wo, post_norm, wgu, wd;
  };
  std::vector<layer> layers;
  std::size_t bytes_per_step = 0;
};

template <class P>
P* alloc(std::size_t n) {
  P* p = nullptr;
  CUDABENCH_CHECK_CUDA(cudaMalloc(&p, n * sizeof(P)));
  CUDABENCH_CHECK_CUDA(cudaMemset(p, 0, n * sizeof(P)));
  return p;
}

model make_model(cudaStream_t s) {
  model m;
  std::size_t off = 0;
  const auto take = [&](std::size_t n) {
    const std::size_t at = off;
    off += (n + 127) / 128 * 128;  // 256-byte aligned, as the engine's layout
    return at;
  };
  m.embed = take(std::size_t{kVocab} * kHidden);
  for (int l = 0; l < kLayers; ++l) {
    model::layer L;
    L.in_norm = take(kHidden);
    L.wqkv = take(std::size_t{kQkvRows} * kHidden);
    L.wo = take(std::size_t{kHidden} * kHidden);
    L.post_norm = take(kHidden);
    L.wgu = take(std::size_t{2} * kInter * kHidden);
    L.wd = take(std::size_t{kHidden} * kInter);
    m.layers.push_back(L);
  }
  m.final_norm = take(kHidden);
  m.lm_head = take(std::size_t{kVocab} * kHidden);
  m.w = alloc<T>(off);
  m.bytes_per_step = (off - std::size_t{kVocab} * kHidden) * sizeof(T);  // the embedding table is read one row
  cudabench::kernels::fill_uniform(m.w, off, 0x5eed, -0.02f, 0.02f, s);
  for (const model::layer& L : m.layers) {
    cudabench::kernels::fill_uniform(m.w + L.in_norm, kHidden, 1, 0.9f, 1.1f, s);
    cudabench::kernels::fill_uniform(m.w + L.post_norm, kHidden, 2, 0.9f, 1.1f, s);
  }
  cudabench::kernels::fill_uniform(m.w + m.final_norm, kHidden, 3, 0.9f, 1.1f, s);
  const std::size_t cache = std::size_t{kLayers} * kHeads * kMaxLen * kHeadDim;
  m.k_cache = alloc<T>(cache);
  m.v_cache = alloc<T>(cache);
  cudabench::kernels::fill_uniform(m.k_cache, cache, 4, -1.0f, 1.0f, s);
  cudabench::kernels::fill_uniform(m.v_cache, cache, 5, -1.0f, 1.0f, s);
  const std::vector<T> rope = k::make_rope_table<T>(kMaxLen, kHeadDim, 10000.0);
  m.rope = alloc<T>(rope.size());
  CUDABENCH_CHECK_CUDA(cudaMemcpy(m.rope, rope.data(), rope.size() * sizeof(T), cudaMemcpyHostToDevice));
  m.h = alloc<T>(kHidden);
  m.qkv = alloc<T>(kQkvRows);
  m.attn = alloc<T>(kHidden);
  m.act = alloc<T>(2 * kInter);
  m.logits = alloc<float>(kVocab);
  m.tokens = alloc<std::int32_t>(kMaxLen);
  m.pos = alloc<int>(1);
  m.as.num_heads = kHeads;
  m.as.num_kv_heads = kHeads;
  m.as.head_dim = kHeadDim;
  m.as.max_len = kMaxLen;
  m.as.chunk = env_int("ANATOMY_ATTN_CHUNK", 16, 1, kMaxLen);
  m.as.scale = 1.0f / std::sqrt(static_cast<float>(kHeadDim));
  m.part_o = alloc<float>(k::attn_decode_partial_floats(m.as));
  m.part_ml = alloc<float>(k::attn_decode_ml_floats(m.as));
  m.counters = alloc<unsigned>(k::attn_decode_counters(m.as));
  return m;
}

void gemv(const model& m, std::size_t w, int n, int kdim, const T* x, const T* norm, void* y, k::gemv_input in,
          k::gemv_output out, cudaStream_t s, int variant = 0) {
  k::gemv_args<T> a;
  a.w = m.w + w;
  a.n = n;
  a.k = kdim;
  a.x = x;
  a.norm_weight = norm;
  a.eps = 1e-5f;
  a.y = y;
  a.variant = variant;
  k::gemv<T>(a, in, out, s);
}

// enqueue_decode_step of engine.cpp, less what the mode removes.
void enqueue_step(const model& m, const mode& md, cudaStream_t s) {
  static const int o_variant = env_int("ANATOMY_O_VARIANT", 0, 0, k::kGemvVariants - 1);
  if (md.ends) k::embedding<T>(m.w + m.embed, kVocab, kHidden, m.tokens, m.pos, 1, m.h, s);
  k::programmatic_launch_scope pdl(true);
  const k::gemv_input normed = md.norm ? k::gemv_input::rmsnorm : k::gemv_input::vector;
  for (const model::layer& L : m.layers) {
    gemv(m, L.wqkv, kQkvRows, kHidden, m.h, m.w + L.in_norm, m.qkv, normed, k::gemv_output::store, s);
    if (md.attention)
      k::attention_decode<T>(m.qkv, m.rope, m.k_cache, m.v_cache, m.pos, m.as, m.part_o, m.part_ml, m.counters, m.attn,
                             s);
    gemv(m, L.wo, kHidden, kHidden, m.attn, nullptr, m.h, k::gemv_input::vector, k::gemv_output::add_residual, s,
         o_variant);
    gemv(m, L.wgu, kInter, kHidden, m.h, m.w + L.post_norm, m.act, normed, k::gemv_output::swiglu, s);
    gemv(m, L.wd, kHidden, kInter, m.act, nullptr, m.h, k::gemv_input::vector, k::gemv_output::add_residual, s);
  }
  gemv(m, m.lm_head, kVocab, kHidden, m.h, m.w + m.final_norm, m.logits, normed, k::gemv_output::store_f32, s);
  if (md.ends) k::argmax_next_token(m.logits, kVocab, m.tokens, kMaxLen, m.pos, -1, s);
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 7;
  cudaDeviceProp prop;
  CUDABENCH_CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
  cudaStream_t s;
  CUDABENCH_CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  const model m = make_model(s);
  CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(s));

  const std::vector<mode> modes = {{"step", true, true, true},
                                   {"no-attention", false, true, true},
                                   {"no-norm", true, false, true},
                                   {"gemvs-only", false, false, false}};
  std::vector<cudaGraphExec_t> graphs;
  const int start_pos = kPrompt;
  for (const mode& md : modes) {
    enqueue_step(m, md, s);  // kernel attributes, outside the capture
    CUDABENCH_CHECK_CUDA(cudaMemcpyAsync(m.pos, &start_pos, sizeof(int), cudaMemcpyHostToDevice, s));
    CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(s));
    cudaGraph_t g;
    cudaGraphExec_t ge;
    CUDABENCH_CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    enqueue_step(m, md, s);
    CUDABENCH_CHECK_CUDA(cudaStreamEndCapture(s, &g));
    CUDABENCH_CHECK_CUDA(cudaGraphInstantiate(&ge, g, 0));
    graphs.push_back(ge);
  }

  // d2d copy bandwidth (read + write), as the suite's memory_bandwidth row measures it: the floor.
  const double copy_gbps = experiments::d2d_copy_gbps(s);
  const double floor_ms = m.bytes_per_step / (copy_gbps * 1e9) * 1e3;
  std::printf(
      "%s, %d SMs: d2d copy %.0f GB/s; %.3f GB of weights per step, floor %.3f ms; o_proj variant %s, "
      "attention split %d\n",
      prop.name, prop.multiProcessorCount, copy_gbps, m.bytes_per_step / 1e9, floor_ms,
      k::gemv_variant_name(env_int("ANATOMY_O_VARIANT", 0, 0, k::kGemvVariants - 1)), m.as.chunk);

  std::vector<std::vector<float>> t(modes.size());
  for (int r = 0; r < rounds; ++r)
    for (std::size_t i = 0; i < modes.size(); ++i) {
      CUDABENCH_CHECK_CUDA(cudaMemcpyAsync(m.pos, &start_pos, sizeof(int), cudaMemcpyHostToDevice, s));
      // The replay before the timed ones (per_call_ms's first call) advances the position once more.
      t[i].push_back(experiments::per_call_ms(s, kSteps, [&] { CUDABENCH_CHECK_CUDA(cudaGraphLaunch(graphs[i], s)); }));
    }
  float step_ms = 0;
  for (std::size_t i = 0; i < modes.size(); ++i) {
    std::sort(t[i].begin(), t[i].end());
    const float med = t[i][t[i].size() / 2];
    if (i == 0) step_ms = med;
    std::printf("%-13s %.4f ms/step [%.4f, %.4f]  %6.1f tok/s  %5.1f%% of copy bandwidth  %+.4f ms vs step\n",
                modes[i].name, med, t[i].front(), t[i].back(), 1e3 / med, 100.0 * floor_ms / med, med - step_ms);
  }
  return 0;
}
