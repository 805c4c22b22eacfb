// See llm_decode.hpp.
#include "workloads/llm_decode/llm_decode.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "cudabench/energy_metrics.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/gpu/cuda_check.hpp"
#include "workloads/llm_decode/llm_decode_workload.hpp"
#include "workloads/llm_decode/validate.hpp"

namespace cudabench {
namespace {

constexpr int kCheckTokens = 8;  // greedy tokens compared against the reference
// The shadow config runs the workload's own prompt length, up to this many positions, so rotary
// factors, prefill attention over long rows and the decode splits are checked at the positions
// that are timed (a 24-token shadow never saw a position past 32). The CPU reference is quadratic
// in the length: ~8 s at 2048 positions on a slow 2-core host, ~0.3 s at 128.
constexpr int kShadowMaxPrompt = 2048;
// The CPU reference costs ~parameters x tokens double multiply-adds; above this budget (about a
// second) verify() checks the shadow config instead.
constexpr double kReferenceBudget = 2e9;

}  // namespace

std::unique_ptr<workload> make_llm_decode(const workload_spec& spec) {
  return std::make_unique<llm_decode_workload>(spec);
}

llm_decode_workload::llm_decode_workload(const workload_spec& spec)
    : model_(spec.get_string("model")),
      from_checkpoint_(spec.get_string("weights") == "checkpoint"),
      dtype_(llm::dtype_from_string(spec.get_string("dtype"))) {
  shape_.prompt_tokens = static_cast<int>(spec.get_int("prompt_tokens"));
  shape_.max_length = static_cast<int>(spec.get_int("max_length"));
  if (spec.get_int("batch") != 1)
    throw input_error(fmt::format("{}: batch {}: only batch 1 is implemented", spec.id, spec.get_int("batch")));
  if (shape_.max_length < shape_.prompt_tokens + 2)
    throw input_error(
        fmt::format("{}: max_length {} must be at least prompt_tokens + 2 = {} (it is the total length, "
                    "prompt included, and decode needs at least one step to time)",
                    spec.id, shape_.max_length, shape_.prompt_tokens + 2));
}

llm_decode_workload::~llm_decode_workload() = default;

void llm_decode_workload::setup(run_context& ctx) {
  config_ = load_llm_config(model_);
  if (from_checkpoint_ && llm_preset(model_))
    throw input_error(
        fmt::format("llm_decode: weights \"checkpoint\" needs a model directory; \"{}\" is a preset "
                    "(use weights \"random\")",
                    model_));
  if (shape_.max_length > config_.max_position_embeddings)
    throw input_error(fmt::format("llm_decode: max_length {} exceeds the model's max_position_embeddings {}",
                                  shape_.max_length, config_.max_position_embeddings));
  source_.from_checkpoint = from_checkpoint_;
  source_.checkpoint_dir = model_;
  source_.seed = ctx.seed;
  engine_ = llm::make_engine(config_, dtype_, shape_, source_, ctx.forced_tuning);
  prompt_ = llm::seeded_prompt(ctx.seed, shape_.prompt_tokens, config_.vocab_size);
  engine_->set_prompt(prompt_);
  weight_bytes_ = static_cast<double>(engine_->weight_bytes());
  step_bytes_ = 0;  // mean bytes per decode step: the KV part grows with the position
  for (int p = shape_.prompt_tokens; p < shape_.max_length - 1; ++p)
    step_bytes_ += static_cast<double>(engine_->decode_step_bytes(p));
  step_bytes_ /= shape_.decode_steps();
  start_ = std::make_unique<cuda_event>();
  first_token_ = std::make_unique<cuda_event>();
  end_ = std::make_unique<cuda_event>();
}

nlohmann::ordered_json llm_decode_workload::tuning() const {
  return engine_ ? engine_->tuning_choices() : nlohmann::ordered_json::object();
}

bool llm_decode_workload::reference_checks_own_model() const {
  const double tokens = shape_.prompt_tokens + kCheckTokens;
  return static_cast<double>(config_.parameter_count()) * tokens <= kReferenceBudget;
}

llm_config llm_decode_workload::shadow_config(const llm_config& big) {
  llm_config s;
  s.name = "shadow of " + big.name;
  s.vocab_size = 512;
  s.hidden_size = 256;
  s.intermediate_size = 688;
  s.num_layers = 2;
  s.head_dim = big.head_dim;
  s.num_kv_heads = 2;
  s.num_heads = 2 * std::min(big.group_size(), 8);
  s.rms_norm_eps = big.rms_norm_eps;
  s.rope_theta = big.rope_theta;
  s.max_position_embeddings = 4096;
  s.tie_word_embeddings = big.tie_word_embeddings;
  return s;
}

validation_outcome llm_decode_workload::verify(run_context& ctx) {
  // What setup's autotuning chose (GEMV variants per call site, PDL or not) and its timings.
  const std::string graph = engine_->tuning();
  if (reference_checks_own_model()) {
    validation_outcome v =
        llm::validate_engine(*engine_, source_, prompt_, kCheckTokens, ctx.stream, "model " + config_.name);
    v.message += "; " + graph;
    return v;
  }

  // Too big for the CPU reference: the same kernels on a small config of the same head shape ...
  validation_outcome shadow;
  {
    const llm_config sc = shadow_config(config_);
    llm::generate_shape ss;
    ss.prompt_tokens = std::min(shape_.prompt_tokens, kShadowMaxPrompt);
    ss.max_length = ss.prompt_tokens + kCheckTokens + 1;
    llm::weight_source src;
    src.seed = ctx.seed ^ 0x5ad0ull;
    auto small = llm::make_engine(sc, dtype_, ss, src);
    shadow = llm::validate_engine(*small, src, llm::seeded_prompt(src.seed, ss.prompt_tokens, sc.vocab_size),
                                  kCheckTokens, ctx.stream, sc.name);
  }
  if (!shadow.passed) return shadow;
  // ... and the real model's full generate must be sane.
  engine_->generate(ctx.stream);
  validation_outcome own = llm::sanity_check(engine_->read_logits(ctx.stream), engine_->read_tokens(ctx.stream),
                                             config_.vocab_size, "model " + config_.name);
  if (!own.passed) return own;
  shadow.message += "; " + own.message + "; " + graph;
  return shadow;
}

void llm_decode_workload::run(cudaStream_t stream) {
  CUDABENCH_CHECK_CUDA(cudaEventRecord(start_->get(), stream));
  engine_->prefill(stream);
  CUDABENCH_CHECK_CUDA(cudaEventRecord(first_token_->get(), stream));
  engine_->decode(shape_.decode_steps(), stream);
  CUDABENCH_CHECK_CUDA(cudaEventRecord(end_->get(), stream));
}

void llm_decode_workload::after_repetition(run_context& /*ctx*/) {
  CUDABENCH_CHECK_CUDA(cudaEventSynchronize(end_->get()));
  float ttft = 0, decode = 0;
  CUDABENCH_CHECK_CUDA(cudaEventElapsedTime(&ttft, start_->get(), first_token_->get()));
  CUDABENCH_CHECK_CUDA(cudaEventElapsedTime(&decode, first_token_->get(), end_->get()));
  ttft_ms_.push_back(ttft);
  decode_ms_.push_back(decode);
}

metric_list llm_decode_workload::metrics(const measurement& m) const {
  metric_list out;
  const int steps = shape_.decode_steps();
  if (!decode_ms_.empty()) {
    out.emplace_back("decode_tokens_per_s", rate_metric("tokens/s", steps, 1.0, decode_ms_));
    std::vector<double> tpot;
    for (double ms : decode_ms_) tpot.push_back(ms / steps);
    out.emplace_back("tpot_ms", time_metric(tpot));
    out.emplace_back("ttft_ms", time_metric(ttft_ms_));
  }
  out.emplace_back("total_ms", time_metric(m.per_run_ms));
  if (!decode_ms_.empty()) {
    std::vector<double> tpot;
    for (double ms : decode_ms_) tpot.push_back(ms / steps);
    out.emplace_back("bandwidth_gbps", rate_metric("GB/s", step_bytes_, 1e9, tpot));
  }
  out.emplace_back("peak_memory_gb",
                   make_metric("GB", better::lower, {static_cast<double>(m.peak_memory_bytes) / 1e9}));
  out.emplace_back("weights_gb", make_metric("GB", better::lower, {weight_bytes_ / 1e9}));
  // Energy of a whole generate (prefill included) per generated token: the first token is prefill's.
  if (auto j = joules_per_work_metric("J/token", steps + 1.0, m.energy_j_per_run))
    out.emplace_back("j_per_token", std::move(*j));
  return out;
}

void llm_decode_workload::teardown() {
  start_.reset();
  first_token_.reset();
  end_.reset();
  engine_.reset();
}

}  // namespace cudabench
