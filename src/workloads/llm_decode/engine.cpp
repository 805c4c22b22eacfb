// See engine.hpp. The two forward passes read top to bottom: enqueue_prefill() and
// enqueue_decode_step(). One class template serves fp16 and bf16.
#include "workloads/llm_decode/engine.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <fmt/format.h>

#include "cudabench/device_memory.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/gpu/blaslt.hpp"
#include "cudabench/gpu/cuda_check.hpp"
#include "cudabench/gpu/cuda_handles.hpp"
#include "cudabench/safetensors.hpp"
#include "kernels/common/random_fill.cuh"
#include "kernels/llm_decode/argmax.cuh"
#include "kernels/llm_decode/attention_decode.cuh"
#include "kernels/llm_decode/attention_prefill.cuh"
#include "kernels/llm_decode/embedding.cuh"
#include "kernels/llm_decode/gemv.cuh"
#include "kernels/llm_decode/launch.cuh"
#include "kernels/llm_decode/rmsnorm.cuh"
#include "kernels/llm_decode/rope_kv.cuh"
#include "kernels/llm_decode/swiglu.cuh"
#include "workloads/llm_decode/prefill_tuner.hpp"
#include "workloads/llm_decode/tuner.hpp"

namespace cudabench::llm {
namespace {

namespace k = cudabench::kernels::llm_decode;

template <class T>
class engine_impl final : public engine {
 public:
  engine_impl(const llm_config& c, dtype d, const generate_shape& g, const weight_source& src,
              const nlohmann::ordered_json* forced)
      : cfg_(c), dtype_(d), shape_(g), layout_(make_weight_layout(c)) {
    if (forced) forced_ = *forced;
    const int P = g.prompt_tokens, L = g.max_length;
    if (P < 1 || L <= P)
      throw input_error(fmt::format("llm engine: need 1 <= prompt_tokens ({}) < max_length ({})", P, L));

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
    attn_counters_ = device_buffer<unsigned>(k::attn_decode_counters(attn_shape_));
    CUDABENCH_CHECK_CUDA(cudaMemsetAsync(attn_counters_.get(), 0, attn_counters_.bytes(), stream_.get()));

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
    const cudaStream_t s = stream_.get();
    const auto enqueue_site = [this](int site, int l, int v, cudaStream_t cs) { enqueue_site_gemv(site, l, v, cs); };
    gemv_tuning gemv =
        tune_gemv_variants(forced_, c.num_layers, s, enqueue_site, [this](cudaStream_t cs) { clear_scratch(cs); });
    std::copy(std::begin(gemv.variant), std::end(gemv.variant), gemv_variant_);
    const int chunk0 = attn_shape_.chunk;
    decode_graph_choice graph = tune_decode_graph(forced_, chunk0, largest_fitting_chunk(chunk0), shape_, pos_.get(), s,
                                                  [this, s](graph_exec& g, int chunk, bool programmatic) {
                                                    attn_shape_.chunk = chunk;
                                                    g.capture(s, [this, programmatic](cudaStream_t cs) {
                                                      enqueue_decode_step(cs, programmatic);
                                                    });
                                                  });
    attn_shape_.chunk = chunk0;
    graph_ = std::move(graph.graph);
    programmatic_ = graph.programmatic;
    chunk_ = graph.chunk;
    // The prefill GEMMs' algorithms (prefill_tuner.hpp), timed on random activations, as a prompt's
    // would be (zeros would draw less power than real data at the 2048-row, compute-bound sizes).
    const std::size_t rows_p = static_cast<std::size_t>(P);
    kernels::fill_uniform(x_.get(), rows_p * H, 0x5eed01, -1.0f, 1.0f, s);
    kernels::fill_uniform(attn_.get(), rows_p * c.q_dim(), 0x5eed02, -1.0f, 1.0f, s);
    kernels::fill_uniform(act_.get(), rows_p * I, 0x5eed03, -1.0f, 1.0f, s);
    lt_matmul* const prefill_gemms[kPrefillSites] = {gemm_qkv_.get(), gemm_o_.get(), gemm_gu_.get(), gemm_down_.get()};
    prefill_tuning prefill =
        tune_prefill_gemms(forced_, prefill_gemms, c.num_layers, s,
                           [this](int site, int l, const cublasLtMatmulAlgo_t& algo, cudaStream_t cs) {
                             const layer_offsets& o = layout_.layers[l];
                             switch (site) {
                               case prefill_qkv: return gemm_qkv_->try_run(algo, w(o.wqkv), x_.get(), qkv_.get(), cs);
                               case prefill_o: return gemm_o_->try_run(algo, w(o.wo), attn_.get(), delta_.get(), cs);
                               case prefill_gate_up: return gemm_gu_->try_run(algo, w(o.wgu), x_.get(), gu_.get(), cs);
                               default: return gemm_down_->try_run(algo, w(o.wd), act_.get(), delta_.get(), cs);
                             }
                           });
    prefill_choices_ = std::move(prefill.choices);
    // The prefill is one graph too: its ~300 launches (32 layers of GEMMs and small kernels) would
    // otherwise wait on the host's launch rate, which TTFT(128) (~5 ms) would measure. One run
    // outside the capture first sets kernel attributes and lets cuBLASLt do its lazy setup.
    enqueue_prefill(s);
    prefill_graph_.capture(s, [this](cudaStream_t cs) { enqueue_prefill(cs); });
    // Back to the state before tuning: the replays wrote tokens, cache rows and the position.
    CUDABENCH_CHECK_CUDA(cudaMemsetAsync(tokens_.get(), 0, tokens_.bytes(), s));
    CUDABENCH_CHECK_CUDA(cudaMemsetAsync(pos_.get(), 0, pos_.bytes(), s));
    CUDABENCH_CHECK_CUDA(cudaMemsetAsync(k_cache_.get(), 0, k_cache_.bytes(), s));
    CUDABENCH_CHECK_CUDA(cudaMemsetAsync(v_cache_.get(), 0, v_cache_.bytes(), s));
    clear_scratch(s);
    CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(s));
    tuning_ =
        fmt::format("decode GEMV variants {}; {}; prefill GEMMs {}", gemv.summary, graph.summary, prefill.summary);
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
      throw std::invalid_argument(
          fmt::format("llm engine: prompt has {} ids, expected {}", ids.size(), shape_.prompt_tokens));
    for (std::int32_t id : ids)
      if (id < 0 || id >= cfg_.vocab_size)
        throw input_error(fmt::format("llm engine: prompt id {} outside the vocabulary [0, {})", id, cfg_.vocab_size));
    CUDABENCH_CHECK_CUDA(cudaMemcpyAsync(tokens_.get(), ids.data(), ids.size() * sizeof(std::int32_t),
                                         cudaMemcpyHostToDevice, stream_.get()));
    CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(stream_.get()));
  }

  void prefill(cudaStream_t stream) override { prefill_graph_.launch(stream); }

  void decode(int steps, cudaStream_t stream) override {
    for (int i = 0; i < steps; ++i) graph_.launch(stream);
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
  bool programmatic_launch() const override { return programmatic_; }
  const std::string& tuning() const override { return tuning_; }
  nlohmann::ordered_json tuning_choices() const override {
    nlohmann::ordered_json gemv = nlohmann::ordered_json::object();
    for (int site = 0; site < kGemvSites; ++site) gemv[kSiteNames[site]] = gemv_variant_[site];
    return {{"gemv", std::move(gemv)},
            {"graph", {{"pdl", programmatic_}, {"attn_chunk", chunk_}}},
            {"prefill_gemm", prefill_choices_}};
  }

 private:
  T* w(std::size_t offset) const { return weights_.get() + offset; }
  std::size_t cache_layer_elements() const {
    return static_cast<std::size_t>(cfg_.num_kv_heads) * shape_.max_length * cfg_.head_dim;
  }
  T* k_layer(int l) const { return k_cache_.get() + l * cache_layer_elements(); }
  T* v_layer(int l) const { return v_cache_.get() + l * cache_layer_elements(); }

  // The largest attention split size from chunk0 (doubling, as the tuner's candidates) whose
  // block fits the device's shared memory: the block keeps a score per (query head, position of
  // its split). Throws unsupported_error when not even chunk0 fits (max_length in the millions
  // with large query groups).
  int largest_fitting_chunk(int chunk0) const {
    int device = 0, optin = 0;
    CUDABENCH_CHECK_CUDA(cudaGetDevice(&device));
    CUDABENCH_CHECK_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    const std::size_t limit = static_cast<std::size_t>(optin) - 64;  // the kernel's static shared bytes
    k::attn_decode_shape probe = attn_shape_;
    probe.chunk = chunk0;
    if (k::attn_decode_smem_bytes(probe) > limit)
      throw unsupported_error(fmt::format(
          "llm engine: decode attention for max_length {} with {} query heads per KV head needs {} bytes of shared "
          "memory per block; this GPU allows {}",
          shape_.max_length, cfg_.group_size(), k::attn_decode_smem_bytes(probe), limit));
    int best = chunk0;
    for (probe.chunk = 2 * chunk0; probe.chunk <= (chunk0 << (kChunkCandidates - 1)); probe.chunk *= 2)
      if (k::attn_decode_smem_bytes(probe) <= limit) best = probe.chunk;
    return best;
  }

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
  void gemv(const T* weight, int n, int kdim, const T* x, const T* norm, void* y, k::gemv_input in, k::gemv_output out,
            cudaStream_t s, int variant = 0) const {
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

  // One decode step; captured into graph_. Row 0 of the activation buffers is the
  // token's; h is the residual stream, updated in place by the o_proj and down_proj epilogues.
  void enqueue_decode_step(cudaStream_t s, bool programmatic) {
    const int H = cfg_.hidden_size;
    k::embedding<T>(w(layout_.embed), cfg_.vocab_size, H, tokens_.get(), pos_.get(), 1, h_.get(), s);
    // Every kernel after the first may overlap its predecessor's tail (the first follows the
    // previous replay's argmax in plain stream order).
    k::programmatic_launch_scope pdl(programmatic);
    for (int l = 0; l < cfg_.num_layers; ++l) {
      enqueue_site_gemv(site_qkv, l, gemv_variant_[site_qkv], s);
      // Rotary embedding, the KV-cache append and attention in one launch (attention_decode.cuh).
      k::attention_decode<T>(qkv_.get(), rope_table_.get(), k_layer(l), v_layer(l), pos_.get(), attn_shape_,
                             part_o_.get(), part_ml_.get(), attn_counters_.get(), attn_.get(), s);
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
  device_buffer<unsigned> attn_counters_;  // attention_decode's per-KV-head completion counters (zero between launches)
  k::attn_decode_shape attn_shape_;

  std::unique_ptr<blaslt_context> lt_;
  std::unique_ptr<lt_matmul> gemm_qkv_, gemm_o_, gemm_gu_, gemm_down_;
  // The decode step graph setup kept (tuner.cpp: the fastest of PDL or not x attention split size).
  graph_exec graph_;
  graph_exec prefill_graph_;  // enqueue_prefill(), captured once
  bool programmatic_ = false;
  int chunk_ = 0;
  int gemv_variant_[kGemvSites] = {};
  std::string tuning_;
  nlohmann::ordered_json forced_ = nlohmann::ordered_json::object();           // choices to replay (--tuning-from)
  nlohmann::ordered_json prefill_choices_ = nlohmann::ordered_json::object();  // prefill_tuner.hpp
};

}  // namespace

std::unique_ptr<engine> make_engine(const llm_config& config, dtype d, const generate_shape& shape,
                                    const weight_source& source, const nlohmann::ordered_json* forced_tuning) {
  if (d == dtype::fp16) return std::make_unique<engine_impl<__half>>(config, d, shape, source, forced_tuning);
  return std::make_unique<engine_impl<__nv_bfloat16>>(config, d, shape, source, forced_tuning);
}

}  // namespace cudabench::llm
