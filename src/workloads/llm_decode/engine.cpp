// See engine.hpp. The two forward passes read top to bottom: enqueue_prefill() and
// enqueue_decode_step(). One class template serves fp16 and bf16.
#include "workloads/llm_decode/engine.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cudabench/blaslt.hpp"
#include "cudabench/cuda_check.hpp"
#include "cudabench/device_memory.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/safetensors.hpp"
#include "kernels/llm_decode/argmax.cuh"
#include "kernels/llm_decode/attention_decode.cuh"
#include "kernels/llm_decode/attention_prefill.cuh"
#include "kernels/llm_decode/embedding.cuh"
#include "cudabench/pick_fastest.hpp"
#include "kernels/llm_decode/gemv.cuh"
#include "kernels/llm_decode/launch.cuh"
#include "kernels/llm_decode/rmsnorm.cuh"
#include "kernels/llm_decode/rope_kv.cuh"
#include "kernels/llm_decode/swiglu.cuh"
#include "workloads/llm_decode/cuda_handles.hpp"

namespace cudabench::llm {
namespace {

namespace k = cudabench::kernels::llm;

// The decode step's GEMV call sites; each gets its own tuned launch variant (gemv.cuh).
enum gemv_site { site_qkv, site_o, site_gate_up, site_down, site_lm_head, kGemvSites };
constexpr const char* kSiteNames[kGemvSites] = {"qkv", "o", "gate_up", "down", "lm_head"};

// Decode attention split sizes the setup tuner tries: the smallest power of two >= 8 positions
// per block that keeps at most 64 splits (the merge kernel walks all splits per thread), and its
// double and quadruple. Small chunks spread a short sequence over more blocks (less serial work
// per block), large ones do less merging; the workspace is sized for the first.
constexpr int kChunkCandidates = 3;
int smallest_decode_chunk(int max_len) {
  int chunk = 8;
  while ((max_len + chunk - 1) / chunk > 64) chunk *= 2;
  return chunk;
}

template <class T>
class engine_impl final : public engine {
 public:
  engine_impl(const llm_config& c, dtype d, const generate_shape& g, const weight_source& src,
              const nlohmann::ordered_json* forced)
      : cfg_(c), dtype_(d), shape_(g), layout_(make_weight_layout(c)) {
    if (forced) forced_ = *forced;
    const int P = g.prompt_tokens, L = g.max_length;
    if (P < 1 || L <= P) throw input_error(fmt::format("llm engine: need 1 <= prompt_tokens ({}) < max_length ({})", P, L));

    weights_ = device_buffer<T>(layout_.total_elements);
    if (src.from_checkpoint) {
      load_checkpoint_weights(weights_.get(), d, layout_, checkpoint::open(src.checkpoint_dir), stream_.get());
    } else {
      fill_random_weights(weights_.get(), d, layout_, src.seed, stream_.get());
    }

    const std::size_t cache = static_cast<std::size_t>(c.num_layers) * c.num_kv_heads * L * c.head_dim;
    k_cache_ = device_buffer<T>(cache);
    v_cache_ = device_buffer<T>(cache);
    // cos/sin of every position the cache can hold, from double (rope_kv.cuh says why).
    const std::vector<T> rope = k::make_rope_table<T>(L, c.head_dim, c.rope_theta);
    rope_table_ = device_buffer<T>(rope.size());
    CUDABENCH_CHECK_CUDA(cudaMemcpy(rope_table_.get(), rope.data(), rope_table_.bytes(), cudaMemcpyHostToDevice));
    const std::size_t rows = static_cast<std::size_t>(P);
    h_ = device_buffer<T>(rows * c.hidden_size);
    x_ = device_buffer<T>(rows * c.hidden_size);
    delta_ = device_buffer<T>(rows * c.hidden_size);
    qkv_ = device_buffer<T>(rows * c.qkv_rows());
    attn_ = device_buffer<T>(rows * c.q_dim());
    gu_ = device_buffer<T>(rows * 2 * c.intermediate_size);
    act_ = device_buffer<T>(rows * c.intermediate_size);
    logits_ = device_buffer<float>(c.vocab_size);
    tokens_ = device_buffer<std::int32_t>(L);
    pos_ = device_buffer<int>(1);

    attn_shape_.num_heads = c.num_heads;
    attn_shape_.num_kv_heads = c.num_kv_heads;
    attn_shape_.head_dim = c.head_dim;
    attn_shape_.max_len = L;
    attn_shape_.chunk = smallest_decode_chunk(L);  // workspace for the most splits; tuned below
    attn_shape_.scale = 1.0f / std::sqrt(static_cast<float>(c.head_dim));
    part_o_ = device_buffer<float>(k::attn_decode_partial_floats(attn_shape_));
    part_ml_ = device_buffer<float>(k::attn_decode_ml_floats(attn_shape_));

    CUDABENCH_CHECK_CUDA(cudaMemsetAsync(tokens_.get(), 0, tokens_.bytes(), stream_.get()));
    CUDABENCH_CHECK_CUDA(cudaMemsetAsync(pos_.get(), 0, pos_.bytes(), stream_.get()));
    // Caches start defined so a read past the written length (a bug) is a wrong number, not NaN noise.
    CUDABENCH_CHECK_CUDA(cudaMemsetAsync(k_cache_.get(), 0, k_cache_.bytes(), stream_.get()));
    CUDABENCH_CHECK_CUDA(cudaMemsetAsync(v_cache_.get(), 0, v_cache_.bytes(), stream_.get()));

    lt_ = std::make_unique<blaslt_context>();
    const gemm_types types = gemm_types_of(d);
    const int H = c.hidden_size, I = c.intermediate_size;
    gemm_qkv_ = std::make_unique<lt_matmul>(make_linear(*lt_, P, c.qkv_rows(), H, types));
    gemm_o_ = std::make_unique<lt_matmul>(make_linear(*lt_, P, H, c.q_dim(), types));
    gemm_gu_ = std::make_unique<lt_matmul>(make_linear(*lt_, P, 2 * I, H, types));
    gemm_down_ = std::make_unique<lt_matmul>(make_linear(*lt_, P, H, I, types));

    CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(stream_.get()));
    tune_gemv_variants();
    capture_decode_graph();
    tuning_ = fmt::format("decode GEMV variants {}; {}", gemv_summary_, graph_summary_);
  }

  const llm_config& config() const override { return cfg_; }
  dtype type() const override { return dtype_; }
  const generate_shape& shape() const override { return shape_; }
  const weight_layout& layout() const override { return layout_; }

  std::uint64_t weight_bytes() const override {
    return static_cast<std::uint64_t>(layout_.parameter_elements()) * sizeof(T);
  }

  std::uint64_t decode_step_bytes(int position) const override {
    const std::uint64_t embed = static_cast<std::uint64_t>(cfg_.vocab_size) * cfg_.hidden_size * sizeof(T);
    std::uint64_t bytes = weight_bytes() + static_cast<std::uint64_t>(cfg_.hidden_size) * sizeof(T);
    if (!cfg_.tie_word_embeddings) bytes -= embed;  // tied: the table is read whole, as lm_head
    bytes += 2ull * cfg_.num_layers * cfg_.num_kv_heads * (static_cast<std::uint64_t>(position) + 1) * cfg_.head_dim *
             sizeof(T);
    return bytes;
  }

  void set_prompt(const std::vector<std::int32_t>& ids) override {
    if (static_cast<int>(ids.size()) != shape_.prompt_tokens)
      throw std::invalid_argument(fmt::format("llm engine: prompt has {} ids, expected {}", ids.size(), shape_.prompt_tokens));
    for (std::int32_t id : ids)
      if (id < 0 || id >= cfg_.vocab_size)
        throw input_error(fmt::format("llm engine: prompt id {} outside the vocabulary [0, {})", id, cfg_.vocab_size));
    CUDABENCH_CHECK_CUDA(cudaMemcpyAsync(tokens_.get(), ids.data(), ids.size() * sizeof(std::int32_t),
                                         cudaMemcpyHostToDevice, stream_.get()));
    CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(stream_.get()));
  }

  void prefill(cudaStream_t stream) override { enqueue_prefill(stream); }

  void decode(int steps, cudaStream_t stream) override {
    for (int i = 0; i < steps; ++i) graphs_[chosen_graph_].launch(stream);
  }

  std::vector<float> read_logits(cudaStream_t stream) const override {
    CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(stream));
    std::vector<float> out(logits_.size());
    CUDABENCH_CHECK_CUDA(cudaMemcpyAsync(out.data(), logits_.get(), logits_.bytes(), cudaMemcpyDeviceToHost, stream));
    CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(stream));
    return out;
  }

  std::vector<std::int32_t> read_tokens(cudaStream_t stream) const override {
    CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(stream));
    std::vector<std::int32_t> out(tokens_.size());
    CUDABENCH_CHECK_CUDA(cudaMemcpyAsync(out.data(), tokens_.get(), tokens_.bytes(), cudaMemcpyDeviceToHost, stream));
    CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(stream));
    return out;
  }

  void* weight_data() override { return weights_.get(); }
  bool programmatic_launch() const override { return programmatic_[chosen_graph_]; }
  const std::string& tuning() const override { return tuning_; }
  nlohmann::ordered_json tuning_choices() const override {
    nlohmann::ordered_json gemv = nlohmann::ordered_json::object();
    for (int site = 0; site < kGemvSites; ++site) gemv[kSiteNames[site]] = gemv_variant_[site];
    return {{"gemv", std::move(gemv)},
            {"graph", {{"pdl", programmatic_[chosen_graph_]}, {"attn_chunk", chunk_[chosen_graph_]}}}};
  }

 private:
  T* w(std::size_t offset) const { return weights_.get() + offset; }
  std::size_t cache_layer_elements() const {
    return static_cast<std::size_t>(cfg_.num_kv_heads) * shape_.max_length * cfg_.head_dim;
  }
  T* k_layer(int l) const { return k_cache_.get() + l * cache_layer_elements(); }
  T* v_layer(int l) const { return v_cache_.get() + l * cache_layer_elements(); }

  k::rope_kv_shape rope_shape(int rows) const {
    k::rope_kv_shape r;
    r.rows = rows;
    r.qkv_stride = cfg_.qkv_rows();
    r.num_heads = cfg_.num_heads;
    r.num_kv_heads = cfg_.num_kv_heads;
    r.head_dim = cfg_.head_dim;
    r.max_len = shape_.max_length;
    return r;
  }

  // One GEMV launch (gemv.cuh): y[n] = W[n, kdim] x, with the given prologue/epilogue.
  void gemv(const T* weight, int n, int kdim, const T* x, const T* norm, void* y, k::gemv_input in,
            k::gemv_output out, cudaStream_t s, int variant = 0) const {
    k::gemv_args<T> a;
    a.w = weight;
    a.n = n;
    a.k = kdim;
    a.x = x;
    a.norm_weight = norm;
    a.eps = static_cast<float>(cfg_.rms_norm_eps);
    a.y = y;
    a.variant = variant;
    k::gemv<T>(a, in, out, s);
  }

  void enqueue_prefill(cudaStream_t s) {
    const int P = shape_.prompt_tokens, H = cfg_.hidden_size, I = cfg_.intermediate_size;
    const float eps = static_cast<float>(cfg_.rms_norm_eps);
    k::attn_prefill_shape as;
    as.rows = P;
    as.qkv_stride = cfg_.qkv_rows();
    as.num_heads = cfg_.num_heads;
    as.num_kv_heads = cfg_.num_kv_heads;
    as.head_dim = cfg_.head_dim;
    as.max_len = shape_.max_length;
    as.scale = attn_shape_.scale;

    k::embedding<T>(w(layout_.embed), cfg_.vocab_size, H, tokens_.get(), nullptr, P, h_.get(), s);
    for (int l = 0; l < cfg_.num_layers; ++l) {
      const layer_offsets& o = layout_.layers[l];
      // h += previous layer's MLP output (none before layer 0); x = input_layernorm(h)
      k::residual_rmsnorm<T>(h_.get(), l == 0 ? nullptr : delta_.get(), w(o.in_norm), eps, P, H, x_.get(), s);
      gemm_qkv_->run(w(o.wqkv), x_.get(), qkv_.get(), s);
      k::rope_kv_append<T>(qkv_.get(), rope_shape(P), rope_table_.get(), nullptr, k_layer(l), v_layer(l), s);
      k::attention_prefill<T>(qkv_.get(), k_layer(l), v_layer(l), as, attn_.get(), s);
      gemm_o_->run(w(o.wo), attn_.get(), delta_.get(), s);
      // h += attention output; x = post_attention_layernorm(h)
      k::residual_rmsnorm<T>(h_.get(), delta_.get(), w(o.post_norm), eps, P, H, x_.get(), s);
      gemm_gu_->run(w(o.wgu), x_.get(), gu_.get(), s);
      k::swiglu<T>(gu_.get(), P, I, act_.get(), s);
      gemm_down_->run(w(o.wd), act_.get(), delta_.get(), s);
    }
    // Only the last prompt position's logits are needed: final residual add + norm on that row.
    const std::size_t last = static_cast<std::size_t>(P - 1) * H;
    k::residual_rmsnorm<T>(h_.get() + last, delta_.get() + last, w(layout_.final_norm), eps, 1, H, x_.get() + last, s);
    gemv(w(layout_.lm_head), cfg_.vocab_size, H, x_.get() + last, nullptr, logits_.get(), k::gemv_input::vector,
         k::gemv_output::store_f32, s);
    k::argmax_next_token(logits_.get(), cfg_.vocab_size, tokens_.get(), shape_.max_length, pos_.get(), P - 1, s);
  }

  // One decode-step GEMV of `site` in layer `l` (ignored for lm_head) with launch variant v: the
  // same arguments enqueue_decode_step() passes.
  void enqueue_site_gemv(int site, int l, int v, cudaStream_t s) const {
    const int H = cfg_.hidden_size, I = cfg_.intermediate_size;
    const layer_offsets& o = layout_.layers[l];
    switch (site) {
      case site_qkv:
        gemv(w(o.wqkv), cfg_.qkv_rows(), H, h_.get(), w(o.in_norm), qkv_.get(), k::gemv_input::rmsnorm,
             k::gemv_output::store, s, v);
        break;
      case site_o:
        gemv(w(o.wo), H, cfg_.q_dim(), attn_.get(), nullptr, h_.get(), k::gemv_input::vector,
             k::gemv_output::add_residual, s, v);
        break;
      case site_gate_up:
        gemv(w(o.wgu), I, H, h_.get(), w(o.post_norm), act_.get(), k::gemv_input::rmsnorm, k::gemv_output::swiglu, s,
             v);
        break;
      case site_down:
        gemv(w(o.wd), H, I, act_.get(), nullptr, h_.get(), k::gemv_input::vector, k::gemv_output::add_residual, s, v);
        break;
      default:
        gemv(w(layout_.lm_head), cfg_.vocab_size, H, h_.get(), w(layout_.final_norm), logits_.get(),
             k::gemv_input::rmsnorm, k::gemv_output::store_f32, s, v);
        break;
    }
  }

  // Activations the tuning launches read and write: zeroed before (defined inputs) and after (the
  // engine starts from the state the constructor leaves, whatever tuning ran).
  void clear_scratch(cudaStream_t s) {
    CUDABENCH_CHECK_CUDA(cudaMemsetAsync(h_.get(), 0, h_.bytes(), s));
    CUDABENCH_CHECK_CUDA(cudaMemsetAsync(qkv_.get(), 0, qkv_.bytes(), s));
    CUDABENCH_CHECK_CUDA(cudaMemsetAsync(attn_.get(), 0, attn_.bytes(), s));
    CUDABENCH_CHECK_CUDA(cudaMemsetAsync(act_.get(), 0, act_.bytes(), s));
    CUDABENCH_CHECK_CUDA(cudaMemsetAsync(logits_.get(), 0, logits_.bytes(), s));
  }

  // Setup-time autotuning of the GEMV launch shape per call site: each variant runs the site's
  // GEMV over every layer's matrix (different weights each launch, so the timing streams from
  // DRAM, not from the 50 MB L2) a few rounds, timed with events; the fastest round wins. All
  // variants compute the same thing (tests/gpu/test_llm_kernels.cpp checks each against the CPU),
  // so the choice only moves time. Llama-2-7B: 4 variants x 6 rounds x ~13 GB / 4 TB/s ~ 80 ms.
  // CUDABENCH_LLM_GEMV=<variant> skips the timing and uses that variant everywhere.
  void tune_gemv_variants() {
    const cudaStream_t s = stream_.get();
    if (const char* env = std::getenv("CUDABENCH_LLM_GEMV"); env && *env) {
      char* rest = nullptr;
      const long v = std::strtol(env, &rest, 10);
      if (*rest != '\0' || v < 0 || v >= k::kGemvVariants)
        throw input_error(fmt::format("CUDABENCH_LLM_GEMV={}: not a GEMV variant (0..{})", env, k::kGemvVariants - 1));
      for (int& site : gemv_variant_) site = static_cast<int>(v);
      gemv_summary_ = fmt::format("forced to {} by CUDABENCH_LLM_GEMV", k::gemv_variant_name(static_cast<int>(v)));
      return;
    }
    if (const auto it = forced_.find("gemv"); it != forced_.end()) {
      // Replay (`--tuning-from`): every site's recorded variant, or an error naming what is missing.
      for (int site = 0; site < kGemvSites; ++site) {
        const auto v = it->find(kSiteNames[site]);
        if (v == it->end() || !v->is_number_integer() || v->get<int>() < 0 || v->get<int>() >= k::kGemvVariants)
          throw input_error(fmt::format("--tuning-from: llm tuning gemv.{} is missing or not a variant (0..{})",
                                        kSiteNames[site], k::kGemvVariants - 1));
        gemv_variant_[site] = v->get<int>();
      }
      gemv_summary_ = "replayed from --tuning-from";
      return;
    }
    clear_scratch(s);
    cuda_event begin, end;
    constexpr int kRounds = 5;  // after one warm-up round
    gemv_summary_.clear();
    for (int site = 0; site < kGemvSites; ++site) {
      const int launches = site == site_lm_head ? 1 : cfg_.num_layers;
      std::vector<double> variant_ms(k::kGemvVariants, 0.0);
      // Rounds interleave the variants, so a clock ramp during tuning hits all of them alike; each
      // variant keeps its best round.
      for (int round = 0; round <= kRounds; ++round)
        for (int v = 0; v < k::kGemvVariants; ++v) {
          CUDABENCH_CHECK_CUDA(cudaEventRecord(begin.get(), s));
          for (int l = 0; l < launches; ++l) enqueue_site_gemv(site, l, v, s);
          CUDABENCH_CHECK_CUDA(cudaEventRecord(end.get(), s));
          CUDABENCH_CHECK_CUDA(cudaEventSynchronize(end.get()));
          float ms = 0.0f;
          CUDABENCH_CHECK_CUDA(cudaEventElapsedTime(&ms, begin.get(), end.get()));
          if (round > 0 && (round == 1 || ms < variant_ms[v])) variant_ms[v] = ms;
        }
      gemv_variant_[site] = static_cast<int>(pick_fastest(variant_ms));  // variant 0 first: ties keep the order
      gemv_summary_ += fmt::format("{}{} {} ({:.1f} us)", site == 0 ? "" : ", ", kSiteNames[site],
                                   k::gemv_variant_name(gemv_variant_[site]),
                                   1000.0 * variant_ms[gemv_variant_[site]] / launches);
    }
    clear_scratch(s);
    CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(s));
  }

  // Captures the decode graph for every candidate (attention split size x plain launches or
  // programmatic dependent launch (launch.cuh), the latter where the driver takes it in a graph),
  // times a few replays of each, interleaved, at a position halfway through the generation, and
  // keeps the fastest. PDL overlaps each kernel's start with its predecessor's tail, but whether
  // that wins depends on the driver and on how neighbouring kernels' blocks share the SMs.
  // CUDABENCH_LLM_PDL=0 / =1 forces plain / PDL (PDL falls back to plain where unsupported);
  // CUDABENCH_LLM_ATTN_CHUNK=<n> forces the split size (one of the candidates).
  void capture_decode_graph() {
    const cudaStream_t s = stream_.get();
    const char* env = std::getenv("CUDABENCH_LLM_PDL");
    bool force_plain = env && std::strcmp(env, "0") == 0;
    bool force_pdl = env && std::strcmp(env, "1") == 0;
    const auto replay = forced_.find("graph");
    if (replay != forced_.end()) {
      const auto pdl = replay->find("pdl");
      if (pdl == replay->end() || !pdl->is_boolean())
        throw input_error("--tuning-from: llm tuning graph.pdl is missing or not a boolean");
      force_pdl = pdl->get<bool>();
      force_plain = !force_pdl;
    }
    const int chunk0 = attn_shape_.chunk;
    std::vector<int> chunks;
    for (int i = 0; i < kChunkCandidates; ++i) chunks.push_back(chunk0 << i);
    if (const char* cenv = std::getenv("CUDABENCH_LLM_ATTN_CHUNK"); cenv && *cenv) {
      char* rest = nullptr;
      const long c = std::strtol(cenv, &rest, 10);
      if (*rest != '\0' || std::find(chunks.begin(), chunks.end(), c) == chunks.end())
        throw input_error(fmt::format("CUDABENCH_LLM_ATTN_CHUNK={}: not one of the split sizes {} for max_length {}",
                                      cenv, fmt::join(chunks, ", "), shape_.max_length));
      chunks = {static_cast<int>(c)};
    } else if (replay != forced_.end()) {
      const auto c = replay->find("attn_chunk");
      if (c == replay->end() || !c->is_number_integer() ||
          std::find(chunks.begin(), chunks.end(), c->get<int>()) == chunks.end())
        throw input_error(fmt::format("--tuning-from: llm tuning graph.attn_chunk is missing or not one of {}",
                                      fmt::join(chunks, ", ")));
      chunks = {c->get<int>()};
    }

    // Capture: PDL candidates first; if the driver refuses PDL in a graph, plain launches only.
    const int n = static_cast<int>(chunks.size());
    bool have_pdl = false;
    for (int i = 0; i < 2 * n; ++i) {
      const bool pdl = i < n;
      attn_shape_.chunk = chunks[i % n];
      programmatic_[i] = pdl;
      chunk_[i] = attn_shape_.chunk;
      if (pdl && (force_plain || (i > 0 && !have_pdl))) continue;
      if (!pdl && force_pdl && have_pdl) continue;
      if (pdl) {
        try {
          graphs_[i].capture(s, [this](cudaStream_t cs) { enqueue_decode_step(cs, true); });
          have_pdl = true;
        } catch (const cuda_error&) {
          graphs_[i].reset();
          (void)cudaGetLastError();  // not supported here: plain launches only
        }
      } else {
        graphs_[i].capture(s, [this](cudaStream_t cs) { enqueue_decode_step(cs, false); });
      }
    }
    attn_shape_.chunk = chunk0;

    std::vector<int> live;
    for (int i = 0; i < 2 * n; ++i)
      if (graphs_[i]) live.push_back(i);
    chosen_graph_ = live.front();
    std::string timings;
    if (live.size() > 1) {
      // Replays around the middle of the generation (attention cost grows with the position);
      // the prefill later rewrites every cache row and token they touch, and the argmax never
      // advances past max_length - 1, so any number of replays is safe.
      const int steps = std::min(8, std::max(1, shape_.max_length - 1));
      const int start = std::max(0, (shape_.prompt_tokens + shape_.max_length) / 2 - steps);
      std::vector<float> best(2 * n, 0.0f);
      cuda_event begin, end;
      for (int round = 0; round <= 2; ++round) {  // round 0 warms up (the first replay uploads the graph)
        for (int i : live) {
          CUDABENCH_CHECK_CUDA(cudaMemcpyAsync(pos_.get(), &start, sizeof(int), cudaMemcpyHostToDevice, s));
          CUDABENCH_CHECK_CUDA(cudaEventRecord(begin.get(), s));
          for (int r = 0; r < steps; ++r) graphs_[i].launch(s);
          CUDABENCH_CHECK_CUDA(cudaEventRecord(end.get(), s));
          CUDABENCH_CHECK_CUDA(cudaEventSynchronize(end.get()));
          float ms = 0.0f;
          CUDABENCH_CHECK_CUDA(cudaEventElapsedTime(&ms, begin.get(), end.get()));
          if (round > 0 && (round == 1 || ms < best[i])) best[i] = ms;
        }
      }
      std::vector<double> live_ms;
      for (int i : live) live_ms.push_back(best[i]);
      chosen_graph_ = live[pick_fastest(live_ms)];  // PDL and the smallest split first: ties keep the order
      for (int i : live) {
        timings += fmt::format("{}{} chunk {} {:.3f} ms", timings.empty() ? "" : ", ", programmatic_[i] ? "PDL" : "plain",
                               chunk_[i], best[i] / steps);
      }
      timings = " (timed per step: " + timings + ")";
    }
    for (int i = 0; i < 2 * n; ++i)
      if (i != chosen_graph_) graphs_[i].reset();
    std::string how = programmatic_[chosen_graph_] ? "programmatic dependent launch" : "plain launches";
    if (replay != forced_.end()) how += " (replayed from --tuning-from)";
    else if (force_plain || (force_pdl && have_pdl)) how += " (forced)";
    else if (!have_pdl) how += " (programmatic launch not supported here)";
    graph_summary_ = fmt::format("decode graph with {}, attention split {} positions{}", how, chunk_[chosen_graph_],
                                 timings);

    // Back to the constructor's state: the replays wrote tokens, cache rows and the position.
    CUDABENCH_CHECK_CUDA(cudaMemsetAsync(tokens_.get(), 0, tokens_.bytes(), s));
    CUDABENCH_CHECK_CUDA(cudaMemsetAsync(pos_.get(), 0, pos_.bytes(), s));
    CUDABENCH_CHECK_CUDA(cudaMemsetAsync(k_cache_.get(), 0, k_cache_.bytes(), s));
    CUDABENCH_CHECK_CUDA(cudaMemsetAsync(v_cache_.get(), 0, v_cache_.bytes(), s));
    clear_scratch(s);
    CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(s));
  }

  // One decode step; captured once into decode_graph_. Row 0 of the activation buffers is the
  // token's; h is the residual stream, updated in place by the o_proj and down_proj epilogues.
  void enqueue_decode_step(cudaStream_t s, bool programmatic) {
    const int H = cfg_.hidden_size;
    k::embedding<T>(w(layout_.embed), cfg_.vocab_size, H, tokens_.get(), pos_.get(), 1, h_.get(), s);
    // Every kernel after the first may overlap its predecessor's tail (the first follows the
    // previous replay's argmax in plain stream order).
    k::programmatic_launch_scope pdl(programmatic);
    for (int l = 0; l < cfg_.num_layers; ++l) {
      enqueue_site_gemv(site_qkv, l, gemv_variant_[site_qkv], s);
      k::rope_kv_append<T>(qkv_.get(), rope_shape(1), rope_table_.get(), pos_.get(), k_layer(l), v_layer(l), s);
      k::attention_decode<T>(qkv_.get(), k_layer(l), v_layer(l), pos_.get(), attn_shape_, part_o_.get(),
                             part_ml_.get(), attn_.get(), s);
      enqueue_site_gemv(site_o, l, gemv_variant_[site_o], s);
      enqueue_site_gemv(site_gate_up, l, gemv_variant_[site_gate_up], s);
      enqueue_site_gemv(site_down, l, gemv_variant_[site_down], s);
    }
    enqueue_site_gemv(site_lm_head, 0, gemv_variant_[site_lm_head], s);
    k::argmax_next_token(logits_.get(), cfg_.vocab_size, tokens_.get(), shape_.max_length, pos_.get(), -1, s);
  }

  llm_config cfg_;
  dtype dtype_;
  generate_shape shape_;
  weight_layout layout_;
  cuda_stream stream_;  // setup work and graph capture (capture needs a non-default stream)

  device_buffer<T> weights_, k_cache_, v_cache_, rope_table_;
  device_buffer<T> h_, x_, delta_, qkv_, attn_, gu_, act_;
  device_buffer<float> logits_, part_o_, part_ml_;
  device_buffer<std::int32_t> tokens_;
  device_buffer<int> pos_;
  k::attn_decode_shape attn_shape_;

  std::unique_ptr<blaslt_context> lt_;
  std::unique_ptr<lt_matmul> gemm_qkv_, gemm_o_, gemm_gu_, gemm_down_;
  // The decode step captured per tuning candidate (capture_decode_graph: PDL or not, attention
  // split size); setup keeps the fastest, graphs_[chosen_graph_], and releases the others.
  static constexpr int kGraphCandidates = 2 * kChunkCandidates;
  graph_exec graphs_[kGraphCandidates];
  bool programmatic_[kGraphCandidates] = {};
  int chunk_[kGraphCandidates] = {};
  int chosen_graph_ = 0;
  int gemv_variant_[kGemvSites] = {};
  std::string gemv_summary_, graph_summary_, tuning_;
  nlohmann::ordered_json forced_ = nlohmann::ordered_json::object();  // choices to replay (--tuning-from)
};

}  // namespace

std::unique_ptr<engine> make_engine(const llm_config& config, dtype d, const generate_shape& shape,
                                    const weight_source& source, const nlohmann::ordered_json* forced_tuning) {
  if (d == dtype::fp16) return std::make_unique<engine_impl<__half>>(config, d, shape, source, forced_tuning);
  return std::make_unique<engine_impl<__nv_bfloat16>>(config, d, shape, source, forced_tuning);
}

}  // namespace cudabench::llm
