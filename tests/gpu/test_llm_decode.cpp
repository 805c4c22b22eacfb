// The llm_decode workload end to end: the tiny preset verifies against the CPU reference (fp16 and
// bf16), corrupted weights fail verification, Llama-2-7B validates through its shadow config
// (also at the full suite's 2048-token context), a Hugging Face checkpoint directory (F16 and F32
// safetensors) loads and verifies, and a mismatched checkpoint is an input_error that names the
// tensor and both shapes. Its tuners through the workload: PDL on or off, every GEMV variant and
// attention split forced, per-site forcing, the split candidates' shared memory, and the prefill
// GEMM choice recorded and replayed (the tuners' own timing: test_tuner_timer.cpp).
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <cuda_fp16.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cudabench/errors.hpp"
#include "cudabench/gpu/cuda_check.hpp"
#include "cudabench/gpu/cuda_handles.hpp"
#include "cudabench/gpu/registry.hpp"
#include "cudabench/llm_config.hpp"
#include "gpu_test_fixture.hpp"
#include "kernels/common/random_fill.cuh"
#include "kernels/llm_decode/gemv.cuh"
#include "workloads/llm_decode/engine.hpp"
#include "workloads/llm_decode/llm_decode.hpp"
#include "workloads/llm_decode/llm_decode_workload.hpp"
#include "workloads/llm_decode/weights.hpp"

using namespace cudabench;
namespace fs = std::filesystem;

namespace {

#define REQUIRE_GPU() CUDABENCH_REQUIRE_GPU("GPU test skipped")

workload_spec make_spec(const std::string& model, const std::string& weights, const std::string& dtype, int prompt,
                        int max_length) {
  workload_spec s;
  s.kind = "llm_decode";
  s.params = nlohmann::ordered_json{{"model", model},          {"weights", weights},       {"dtype", dtype},
                                    {"prompt_tokens", prompt}, {"max_length", max_length}, {"batch", 1}};
  s.id = fmt::format("llm_decode/model={}/weights={}/dtype={}/prompt_tokens={}/max_length={}/batch=1", model, weights,
                     dtype, prompt, max_length);
  return s;
}

struct harness {
  cuda_stream owner;  // non-blocking
  cudaStream_t stream = owner.get();
  cudaDeviceProp props{};
  run_context ctx;
  harness() {
    CUDABENCH_CHECK_CUDA(cudaGetDeviceProperties(&props, 0));
    ctx.stream = stream;
    ctx.props = &props;
  }
};

std::unique_ptr<llm_decode_workload> make_workload(const workload_spec& spec) {
  const kind_entry* k = find_kind("llm_decode");
  if (!k) throw std::runtime_error("llm_decode is not registered");
  std::unique_ptr<workload> w = k->make(spec);
  auto* typed = dynamic_cast<llm_decode_workload*>(w.get());
  if (!typed) throw std::runtime_error("llm_decode made another class");
  w.release();
  return std::unique_ptr<llm_decode_workload>(typed);
}

// Overwrites a whole tensor on the device with one fp16 value.
void overwrite_tensor(llm_decode_workload& w, const std::string& name, float value) {
  for (const auto& s : w.engine().layout().slots)
    if (s.name == name) {
      std::vector<__half> v(static_cast<std::size_t>(s.numel()), __float2half_rn(value));
      __half* dst = static_cast<__half*>(w.engine().weight_data()) + s.offset;
      CUDABENCH_CHECK_CUDA(cudaMemcpy(dst, v.data(), v.size() * 2, cudaMemcpyHostToDevice));
      return;
    }
  FAIL() << "no tensor " << name;
}

}  // namespace

TEST(LlmDecode, TinyPresetVerifiesAndReportsMetrics) {
  REQUIRE_GPU();
  for (const char* dtype : {"fp16", "bf16"}) {
    harness h;
    auto w = make_workload(make_spec("llama-tiny", "random", dtype, 32, 64));
    w->setup(h.ctx);
    EXPECT_TRUE(w->reference_checks_own_model());
    const validation_outcome v = w->verify(h.ctx);
    std::printf("llama-tiny %s: passed=%d max_rel_error=%.3g tolerance=%.3g\n  %s\n", dtype, v.passed, v.max_rel_error,
                v.tolerance, v.message.c_str());
    EXPECT_TRUE(v.passed) << v.message;
    EXPECT_LE(v.max_rel_error, v.tolerance);

    // Two timed runs, as the harness would do them.
    for (int rep = 0; rep < 2; ++rep) {
      w->run(h.stream);
      CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(h.stream));
      w->after_repetition(h.ctx);
    }
    measurement m;
    m.per_run_ms = {5.0, 5.0};
    m.peak_memory_bytes = 123456789;
    const metric_list ms = w->metrics(m);
    std::vector<std::string> names;
    for (const auto& [name, met] : ms) names.push_back(name);
    EXPECT_EQ(names, (std::vector<std::string>{"decode_tokens_per_s", "tpot_ms", "ttft_ms", "total_ms",
                                               "bandwidth_gbps", "peak_memory_gb", "weights_gb"}));
    EXPECT_EQ(ms[0].second.samples.size(), 2u);
    EXPECT_GT(ms[0].second.median, 0.0);
    EXPECT_NEAR(ms[5].second.median, 0.123456789, 1e-12);
    // llama-tiny: 3,164,416 parameters x 2 bytes.
    EXPECT_NEAR(ms[6].second.median, 3164416 * 2 / 1e9, 1e-12);
    std::printf("  decode %.0f tokens/s, ttft %.3f ms\n", ms[0].second.median, ms[2].second.median);
    w->teardown();
  }
}

TEST(LlmDecode, RunAfterVerifyRepeatsTheSameTokens) {
  REQUIRE_GPU();
  harness h;
  auto w = make_workload(make_spec("llama-tiny", "random", "fp16", 16, 40));
  w->setup(h.ctx);
  ASSERT_TRUE(w->verify(h.ctx).passed);
  const auto first = w->engine().read_tokens(h.stream);
  w->run(h.stream);
  const auto second = w->engine().read_tokens(h.stream);
  EXPECT_EQ(first, second);  // every run starts from the prompt: no state leaks between runs
}

TEST(LlmDecode, ProgrammaticLaunchChangesNothingButTiming) {
  REQUIRE_GPU();
  harness h;
  // Both engines on the same GEMV variant and attention split (the tuner may pick different ones,
  // which can differ in the last bit), PDL forced on in one and off in the other.
  ::setenv("CUDABENCH_LLM_GEMV", "0", 1);
  ::setenv("CUDABENCH_LLM_ATTN_CHUNK", "16", 1);
  ::setenv("CUDABENCH_LLM_PDL", "1", 1);
  auto with = make_workload(make_spec("llama-tiny", "random", "fp16", 16, 48));
  with->setup(h.ctx);
  ::setenv("CUDABENCH_LLM_PDL", "0", 1);
  auto without = make_workload(make_spec("llama-tiny", "random", "fp16", 16, 48));
  without->setup(h.ctx);
  ::unsetenv("CUDABENCH_LLM_PDL");
  ::unsetenv("CUDABENCH_LLM_GEMV");
  ::unsetenv("CUDABENCH_LLM_ATTN_CHUNK");
  std::printf("decode graph with programmatic dependent launch: %s\n",
              with->engine().programmatic_launch() ? "yes" : "no (not supported here: plain launches)");
  EXPECT_FALSE(without->engine().programmatic_launch());
  with->run(h.stream);
  without->run(h.stream);
  EXPECT_EQ(with->engine().read_tokens(h.stream), without->engine().read_tokens(h.stream));
  EXPECT_EQ(with->engine().read_logits(h.stream), without->engine().read_logits(h.stream));  // bitwise
}

// The setup autotuner may pick any GEMV variant for any call site: the whole model verifies
// against the CPU reference with each variant forced everywhere, and with the tuner's own choice.
TEST(LlmDecode, EveryGemvVariantVerifies) {
  REQUIRE_GPU();
  std::vector<std::string> variants;
  for (int v = 0; v < kernels::llm_decode::kGemvVariants; ++v) variants.push_back(std::to_string(v));
  variants.push_back("");  // the tuner's choice
  for (const std::string& name : variants) {
    const char* variant = name.c_str();
    harness h;
    if (*variant) ::setenv("CUDABENCH_LLM_GEMV", variant, 1);
    auto w = make_workload(make_spec("llama-tiny", "random", "fp16", 16, 40));
    w->setup(h.ctx);
    ::unsetenv("CUDABENCH_LLM_GEMV");
    const validation_outcome v = w->verify(h.ctx);
    std::printf("GEMV variant %s: passed=%d max_rel_error=%.3g\n  %s\n", *variant ? variant : "tuned", v.passed,
                v.max_rel_error, w->engine().tuning().c_str());
    EXPECT_TRUE(v.passed) << v.message;
    if (*variant) EXPECT_NE(w->engine().tuning().find("forced"), std::string::npos);
  }
  harness h;
  ::setenv("CUDABENCH_LLM_GEMV", std::to_string(kernels::llm_decode::kGemvVariants).c_str(), 1);  // one past the last
  auto bad = make_workload(make_spec("llama-tiny", "random", "fp16", 16, 40));
  EXPECT_THROW(bad->setup(h.ctx), input_error);
  ::unsetenv("CUDABENCH_LLM_GEMV");
}

// CUDABENCH_LLM_GEMV=SITE:V pins only the sites named (a planted slowdown of a few percent for the
// verdict tests); the others are still tuned; malformed values are input errors naming the value.
TEST(LlmDecode, GemvForcingPerSite) {
  REQUIRE_GPU();
  harness h;
  ::setenv("CUDABENCH_LLM_GEMV", "o:3,down:2", 1);
  auto w = make_workload(make_spec("llama-tiny", "random", "fp16", 16, 40));
  w->setup(h.ctx);
  ::unsetenv("CUDABENCH_LLM_GEMV");
  const nlohmann::ordered_json t = w->tuning();
  EXPECT_EQ(t["gemv"]["o"], 3);
  EXPECT_EQ(t["gemv"]["down"], 2);
  const std::string summary = w->engine().tuning();
  EXPECT_NE(summary.find("o 4w/u16 (forced by CUDABENCH_LLM_GEMV)"), std::string::npos) << summary;
  EXPECT_NE(summary.find("qkv "), std::string::npos) << summary;
  EXPECT_EQ(summary.find("qkv 8w/u8 (forced"), std::string::npos) << summary;  // qkv was tuned
  EXPECT_TRUE(w->verify(h.ctx).passed);
  for (const char* bad : {"o:9", "o:", "out:1", "o:1,", "qkv=1"}) {
    ::setenv("CUDABENCH_LLM_GEMV", bad, 1);
    auto b = make_workload(make_spec("llama-tiny", "random", "fp16", 16, 40));
    try {
      b->setup(h.ctx);
      ADD_FAILURE() << bad << " was accepted";
    } catch (const input_error& e) {
      EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
    }
    ::unsetenv("CUDABENCH_LLM_GEMV");
  }
}

// A cache of 262,144 positions with 8 query heads per KV head: the smallest split that keeps 64
// splits is 4096 positions, whose block needs ~170 KB of shared memory; the larger candidates
// would not fit, so the tuner must be offered only that one, and decode steps must run.
TEST(LlmDecode, SplitCandidatesStayWithinSharedMemory) {
  REQUIRE_GPU();
  llm_config c;
  c.name = "long-context test";
  c.vocab_size = 64;
  c.hidden_size = 1024;
  c.intermediate_size = 256;
  c.num_layers = 1;
  c.num_heads = 8;
  c.num_kv_heads = 1;
  c.head_dim = 128;
  c.rms_norm_eps = 1e-5;
  c.rope_theta = 10000.0;
  c.max_position_embeddings = 1 << 18;
  llm::generate_shape g;
  g.prompt_tokens = 4;
  g.max_length = 1 << 18;
  llm::weight_source src;
  src.seed = 7;
  cuda_stream stream;
  auto e = llm::make_engine(c, dtype::fp16, g, src);
  EXPECT_EQ(e->tuning_choices()["graph"]["attn_chunk"], 4096) << e->tuning();
  e->set_prompt({1, 2, 3, 4});
  e->prefill(stream.get());
  e->decode(3, stream.get());
  const auto tokens = e->read_tokens(stream.get());
  for (int i = 4; i < 8; ++i) EXPECT_TRUE(tokens[i] >= 0 && tokens[i] < c.vocab_size) << i;
  for (float v : e->read_logits(stream.get())) ASSERT_TRUE(std::isfinite(v));
}

// The prefill GEMMs' cuBLASLt algorithms (prefill_tuner.hpp): chosen among the heuristic's top
// candidates and recorded per site; a replay of the record reproduces them; a record without them
// (an older build's) and CUDABENCH_LLM_PREFILL_GEMM=heuristic both mean the heuristic's first;
// another value of the variable is an input error naming it. The prefill still runs.
TEST(LlmDecode, PrefillGemmTuningIsRecordedAndReplayed) {
  REQUIRE_GPU();
  const llm_config c = *llm_preset("llama-tiny");
  llm::generate_shape g;
  g.prompt_tokens = 16;
  g.max_length = 40;
  llm::weight_source src;
  src.seed = 11;
  cuda_stream stream;
  const char* sites[] = {"qkv", "o", "gate_up", "down"};
  const auto tuned = llm::make_engine(c, dtype::fp16, g, src);
  const nlohmann::ordered_json choices = tuned->tuning_choices();
  std::printf("%s\n", tuned->tuning().c_str());
  ASSERT_TRUE(choices.contains("prefill_gemm")) << choices.dump();
  for (const char* site : sites) {
    const auto& r = choices["prefill_gemm"][site];
    ASSERT_TRUE(r.is_object()) << site << ": " << choices.dump();
    EXPECT_GE(r["candidate"].get<int>(), 0) << site;
    EXPECT_LT(r["candidate"].get<int>(), r["of"].get<int>()) << site;
    EXPECT_TRUE(r.contains("id") && r.contains("tile") && r.contains("splitk")) << r.dump();
  }
  tuned->set_prompt(std::vector<std::int32_t>(16, 3));
  tuned->prefill(stream.get());
  for (float v : tuned->read_logits(stream.get())) ASSERT_TRUE(std::isfinite(v));

  const auto replayed = llm::make_engine(c, dtype::fp16, g, src, &choices);
  EXPECT_EQ(replayed->tuning_choices()["prefill_gemm"], choices["prefill_gemm"]) << replayed->tuning();

  nlohmann::ordered_json older = choices;
  older.erase("prefill_gemm");
  const auto from_older = llm::make_engine(c, dtype::fp16, g, src, &older);
  for (const char* site : sites) EXPECT_EQ(from_older->tuning_choices()["prefill_gemm"][site]["candidate"], 0) << site;
  EXPECT_NE(from_older->tuning().find("replayed record has none"), std::string::npos) << from_older->tuning();

  ::setenv("CUDABENCH_LLM_PREFILL_GEMM", "heuristic", 1);
  const auto heuristic = llm::make_engine(c, dtype::fp16, g, src);
  for (const char* site : sites) EXPECT_EQ(heuristic->tuning_choices()["prefill_gemm"][site]["candidate"], 0) << site;
  ::setenv("CUDABENCH_LLM_PREFILL_GEMM", "fastest", 1);
  try {
    llm::make_engine(c, dtype::fp16, g, src);
    ADD_FAILURE() << "CUDABENCH_LLM_PREFILL_GEMM=fastest was accepted";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("fastest"), std::string::npos) << e.what();
  }
  ::unsetenv("CUDABENCH_LLM_PREFILL_GEMM");
}

// Likewise for the attention split size (max_length 40: 16, 32 or 64 positions per block).
TEST(LlmDecode, EveryAttentionSplitVerifies) {
  REQUIRE_GPU();
  for (const char* chunk : {"16", "32", "64"}) {
    harness h;
    ::setenv("CUDABENCH_LLM_ATTN_CHUNK", chunk, 1);
    auto w = make_workload(make_spec("llama-tiny", "random", "fp16", 16, 40));
    w->setup(h.ctx);
    ::unsetenv("CUDABENCH_LLM_ATTN_CHUNK");
    const validation_outcome v = w->verify(h.ctx);
    std::printf("attention split %s: passed=%d max_rel_error=%.3g\n  %s\n", chunk, v.passed, v.max_rel_error,
                w->engine().tuning().c_str());
    EXPECT_TRUE(v.passed) << v.message;
    EXPECT_NE(w->engine().tuning().find(std::string("attention split ") + chunk + " positions"), std::string::npos);
  }
  harness h;
  ::setenv("CUDABENCH_LLM_ATTN_CHUNK", "12", 1);
  auto bad = make_workload(make_spec("llama-tiny", "random", "fp16", 16, 40));
  EXPECT_THROW(bad->setup(h.ctx), input_error);
  ::unsetenv("CUDABENCH_LLM_ATTN_CHUNK");
}

TEST(LlmDecode, CorruptedWeightsFailVerification) {
  REQUIRE_GPU();
  for (const char* tensor :
       {"model.norm.weight", "model.layers.0.mlp.down_proj.weight", "model.layers.1.self_attn.v_proj.weight"}) {
    harness h;
    auto w = make_workload(make_spec("llama-tiny", "random", "fp16", 16, 32));
    w->setup(h.ctx);
    overwrite_tensor(*w, tensor, 0.5f);
    const validation_outcome v = w->verify(h.ctx);
    std::printf("corrupted %s: passed=%d max_rel_error=%.3g\n  %s\n", tensor, v.passed, v.max_rel_error,
                v.message.c_str());
    EXPECT_FALSE(v.passed) << tensor;
  }
}

TEST(LlmDecode, Llama2_7bValidatesThroughItsShadowConfig) {
  REQUIRE_GPU();
  harness h;
  auto w = make_workload(make_spec("llama-2-7b", "random", "fp16", 16, 24));
  w->setup(h.ctx);
  EXPECT_FALSE(w->reference_checks_own_model());
  const validation_outcome v = w->verify(h.ctx);
  std::printf("llama-2-7b: passed=%d max_rel_error=%.3g\n  %s\n", v.passed, v.max_rel_error, v.message.c_str());
  EXPECT_TRUE(v.passed) << v.message;
  EXPECT_NE(v.message.find("shadow of llama-2-7b"), std::string::npos);
  EXPECT_NEAR(w->engine().weight_bytes() / 1e9, 13.47683, 1e-4);
}

// configs/full.json's long-context row: the engine holds 2048 prompt positions and a 2304-token
// cache (prefill attention over 2048 rows, decode splits over up to 2303 positions), and verify()
// checks the shadow config at the same 2048-position prompt against the CPU reference.
TEST(LlmDecode, Llama2_7bLongContextRowValidates) {
  REQUIRE_GPU();
  harness h;
  auto w = make_workload(make_spec("llama-2-7b", "random", "fp16", 2048, 2304));
  w->setup(h.ctx);
  EXPECT_EQ(w->engine().shape().prompt_tokens, 2048);
  const validation_outcome v = w->verify(h.ctx);
  std::printf("llama-2-7b 2048 -> 2304: passed=%d max_rel_error=%.3g\n  %s\n", v.passed, v.max_rel_error,
              v.message.c_str());
  EXPECT_TRUE(v.passed) << v.message;
  EXPECT_NE(v.message.find("shadow of llama-2-7b"), std::string::npos);
  w->run(h.stream);
  w->after_repetition(h.ctx);
  const std::vector<float> logits = w->engine().read_logits(h.stream);
  for (float x : logits) ASSERT_TRUE(std::isfinite(x));
  const std::vector<std::int32_t> tokens = w->engine().read_tokens(h.stream);
  ASSERT_EQ(tokens.size(), 2304u);
  w->teardown();
}

// Not a benchmark (the suite is): prints the seed configuration's numbers with programmatic launch
// on and off, so a test run already shows where decode stands against the ~3.1 ms/token floor.
TEST(LlmDecode, Llama2_7bTimingPrintout) {
  REQUIRE_GPU();
  for (const char* pdl : {"1", "0"}) {
    harness h;
    ::setenv("CUDABENCH_LLM_PDL", pdl, 1);
    auto w = make_workload(make_spec("llama-2-7b", "random", "fp16", 128, 256));
    w->setup(h.ctx);
    ::unsetenv("CUDABENCH_LLM_PDL");
    w->run(h.stream);  // warm-up
    CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(h.stream));
    for (int rep = 0; rep < 3; ++rep) {
      w->run(h.stream);
      CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(h.stream));
      w->after_repetition(h.ctx);
    }
    measurement m;
    m.per_run_ms = {1.0};
    const metric_list ms = w->metrics(m);
    std::printf(
        "llama-2-7b fp16 128->256, programmatic launch %s: decode %.1f tokens/s, tpot %.3f ms, ttft %.3f ms, "
        "%.0f GB/s\n  %s\n",
        w->engine().programmatic_launch() ? "on" : "off", ms[0].second.median, ms[1].second.median, ms[2].second.median,
        ms[4].second.median, w->engine().tuning().c_str());
    const auto tokens = w->engine().read_tokens(h.stream);
    for (int t : tokens) ASSERT_TRUE(t >= 0 && t < 32000);
  }
}

TEST(LlmDecode, ParameterErrors) {
  EXPECT_THROW(make_workload(make_spec("llama-tiny", "random", "fp16", 128, 129)), input_error);
  REQUIRE_GPU();
  harness h;
  auto w = make_workload(make_spec("llama-tiny", "checkpoint", "fp16", 8, 16));
  try {
    w->setup(h.ctx);
    FAIL() << "checkpoint weights for a preset accepted";
  } catch (const input_error& e) {
    EXPECT_NE(std::string(e.what()).find("needs a model directory"), std::string::npos) << e.what();
  }
  auto w2 = make_workload(make_spec("llama-tiny", "random", "fp16", 8, 4096));
  EXPECT_THROW(w2->setup(h.ctx), input_error);  // beyond max_position_embeddings 2048
}

// ---- Hugging Face directories written here -------------------------------------------------------

namespace {

struct st_tensor {
  std::string name;
  std::vector<std::int64_t> shape;
  std::vector<float> values;
};

// A tiny grouped-query, non-square Llama: hidden 32, intermediate 44, 4 heads, 2 KV heads.
const char* kTinyConfig = R"({"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_act": "silu",
  "vocab_size": 64, "hidden_size": 32, "intermediate_size": 44, "num_hidden_layers": 2,
  "num_attention_heads": 4, "num_key_value_heads": 2, "rms_norm_eps": 1e-06, "rope_theta": 10000.0,
  "max_position_embeddings": 128, "tie_word_embeddings": false, "torch_dtype": "float16"})";

std::vector<st_tensor> tiny_tensors() {
  const std::int64_t v = 64, h = 32, i = 44, kv = 16;
  std::vector<st_tensor> t;
  std::uint64_t seed = 1000;
  auto add = [&](const std::string& name, std::vector<std::int64_t> shape, float lo, float hi) {
    std::int64_t n = 1;
    for (auto d : shape) n *= d;
    std::vector<float> vals(static_cast<std::size_t>(n));
    ++seed;
    for (std::int64_t j = 0; j < n; ++j) vals[j] = kernels::uniform_at(seed, j, lo, hi);
    t.push_back({name, std::move(shape), std::move(vals)});
  };
  add("model.embed_tokens.weight", {v, h}, -1, 1);
  for (int l = 0; l < 2; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    const float ah = 1 / std::sqrt(32.0f), ai = 1 / std::sqrt(44.0f);
    add(p + "input_layernorm.weight", {h}, 0.9f, 1.1f);
    add(p + "self_attn.q_proj.weight", {h, h}, -3 * ah, 3 * ah);
    add(p + "self_attn.k_proj.weight", {kv, h}, -3 * ah, 3 * ah);
    add(p + "self_attn.v_proj.weight", {kv, h}, -ah, ah);
    add(p + "self_attn.o_proj.weight", {h, h}, -ah, ah);
    add(p + "post_attention_layernorm.weight", {h}, 0.9f, 1.1f);
    add(p + "mlp.gate_proj.weight", {i, h}, -ah, ah);
    add(p + "mlp.up_proj.weight", {i, h}, -ah, ah);
    add(p + "mlp.down_proj.weight", {h, i}, -ai, ai);
  }
  add("model.norm.weight", {h}, 0.9f, 1.1f);
  add("lm_head.weight", {v, h}, -1 / std::sqrt(32.0f), 1 / std::sqrt(32.0f));
  return t;
}

// Writes config.json and model.safetensors (F16 or F32) into a fresh directory.
std::string write_hf_dir(const std::string& name, const std::vector<st_tensor>& tensors, bool f32) {
  const fs::path dir = fs::temp_directory_path() / ("cudabench_llm_" + name);
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "config.json") << kTinyConfig;
  nlohmann::ordered_json header;
  header["__metadata__"] = {{"format", "pt"}};
  std::string data;
  for (const auto& t : tensors) {
    const std::size_t begin = data.size();
    for (float x : t.values) {
      if (f32) {
        char b[4];
        std::memcpy(b, &x, 4);
        data.append(b, 4);
      } else {
        const __half hv = __float2half_rn(x);
        char b[2];
        std::memcpy(b, &hv, 2);
        data.append(b, 2);
      }
    }
    header[t.name] = {{"dtype", f32 ? "F32" : "F16"}, {"shape", t.shape}, {"data_offsets", {begin, data.size()}}};
  }
  const std::string hs = header.dump();
  std::ofstream out(dir / "model.safetensors", std::ios::binary);
  const std::uint64_t n = hs.size();
  for (int b = 0; b < 8; ++b) out.put(static_cast<char>((n >> (8 * b)) & 0xff));
  out << hs << data;
  return dir.string();
}

}  // namespace

TEST(LlmDecode, CheckpointDirectoryLoadsAndVerifies) {
  REQUIRE_GPU();
  for (bool f32 : {false, true}) {
    harness h;
    const std::string dir = write_hf_dir(f32 ? "f32" : "f16", tiny_tensors(), f32);
    auto w = make_workload(make_spec(dir, "checkpoint", "fp16", 8, 20));
    w->setup(h.ctx);
    const validation_outcome v = w->verify(h.ctx);
    std::printf("checkpoint (%s): passed=%d max_rel_error=%.3g\n  %s\n", f32 ? "F32" : "F16", v.passed, v.max_rel_error,
                v.message.c_str());
    EXPECT_TRUE(v.passed) << v.message;
    // The same directory with random weights uses the config only.
    auto r = make_workload(make_spec(dir, "random", "fp16", 8, 20));
    r->setup(h.ctx);
    EXPECT_TRUE(r->verify(h.ctx).passed);
  }
}

TEST(LlmDecode, MismatchedCheckpointIsAnInputErrorNamingTheTensor) {
  REQUIRE_GPU();
  harness h;
  auto tensors = tiny_tensors();
  for (auto& t : tensors)
    if (t.name == "model.layers.1.self_attn.k_proj.weight") {
      t.shape = {32, 32};  // a full-width k_proj: the config says 2 KV heads of 8
      t.values.resize(32 * 32, 0.01f);
    }
  const std::string dir = write_hf_dir("bad_shape", tensors, false);
  auto w = make_workload(make_spec(dir, "checkpoint", "fp16", 8, 20));
  try {
    w->setup(h.ctx);
    FAIL() << "mismatched shape accepted";
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()),
              dir + ": tensor model.layers.1.self_attn.k_proj.weight: shape [32, 32] (expected [16, 32])");
  }

  auto missing = tiny_tensors();
  missing.pop_back();  // no lm_head.weight (the config does not tie embeddings)
  const std::string dir2 = write_hf_dir("missing", missing, false);
  auto w2 = make_workload(make_spec(dir2, "checkpoint", "fp16", 8, 20));
  try {
    w2->setup(h.ctx);
    FAIL() << "missing tensor accepted";
  } catch (const input_error& e) {
    EXPECT_EQ(std::string(e.what()), dir2 + ": tensor lm_head.weight is missing");
  }
}
