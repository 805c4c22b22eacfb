// See transformer_memory.hpp.
//   setup:   cuBLASLt context, the model (weights, inputs, activations, GEMM plans) -- all device
//            memory of the run is allocated here, through device_buffer, so --mem-limit fails in
//            setup with the size asked for, and RAII releases what was already allocated.
//   verify:  the full-size forward is finite; the small validation shape through the same code
//            matches the CPU double reference.
//   run:     one forward pass (mode train: with dropout, keeping what autograd saves; model.hpp);
//            with backward: true, that forward and then the backward of sum(out * G), every
//            parameter's gradient (model_backward.cpp), G fixed and seeded at setup.
//   CUDABENCH_TRANSFORMER_DUMP=DIR (tests only: scripts/torch_match.py) makes verify() write the
//            weights, inputs, output and dropout masks of the full-size forward for PyTorch to
//            rerun (torch_dump.hpp); host memory only, before anything is timed.
//   metrics: peak_memory_mb (headline; own allocations + library workspaces, from the harness),
//            time_ms, tokens_per_s = batch * seq_len / time (source tokens; target has as many).
//            backward rows: the same names, over forward + backward (one training step without the
//            optimizer): peak_memory_mb includes the gradients and the backward's buffers, time_ms
//            is forward + backward; rows without backward keep today's meaning. They add
//            forward_ms and backward_ms: one forward + backward after each timed repetition,
//            split by events (after_repetition), one sample each per repetition.
#include "workloads/transformer_memory/transformer_memory.hpp"

#include <fmt/format.h>

#include "cudabench/errors.hpp"
#include "cudabench/gpu/blaslt.hpp"
#include "cudabench/gpu/cuda_check.hpp"
#include "cudabench/gpu/cuda_handles.hpp"
#include "workloads/transformer_memory/model.hpp"
#include "workloads/transformer_memory/torch_dump.hpp"
#include "workloads/transformer_memory/validate.hpp"

namespace cudabench {
namespace {

constexpr std::size_t workspace_bytes = 8u << 20;
constexpr double default_dropout = 0.1;  // nn.Transformer's default

class transformer_memory_workload final : public workload {
 public:
  explicit transformer_memory_workload(const workload_spec& spec) : id_(spec.id) {
    cfg_.batch = static_cast<int>(spec.get_int("batch"));
    cfg_.src_len = cfg_.tgt_len = static_cast<int>(spec.get_int("seq_len"));
    cfg_.dtype = parse_dtype(spec.get_string("dtype"), "transformer_memory", {dtype::fp32, dtype::fp16});
    weights_ = spec.get_string("weights");
    // `mode` and `dropout` have no schema default, so rows that do not name them keep their ids.
    const bool train = spec.has("mode") && spec.get_string("mode") == "train";
    cfg_.mode = train ? transformer::run_mode::train : transformer::run_mode::inference;
    if (spec.has("dropout") && !train)
      throw input_error(spec.id + ": dropout applies only with mode \"train\" (eval mode has no dropout)");
    cfg_.dropout = train ? (spec.has("dropout") ? spec.get_number("dropout") : default_dropout) : 0.0;
    cfg_.backward = spec.has("backward") && spec.get_bool("backward");
    if (spec.has("backward") && !train)
      throw input_error(spec.id +
                        ": backward applies only with mode \"train\" (eval mode keeps nothing to go back "
                        "through)");
    if (cfg_.backward && cfg_.dtype != dtype::fp32)
      throw input_error(spec.id + ": backward: only dtype fp32 has a backward pass");
  }

  void setup(run_context& ctx) override {
    // Built into locals and moved in only when complete: an oom_error half way frees everything.
    // 8 MiB of cuBLASLt workspace: these GEMMs are large enough in M not to need split-K, and
    // the workspace counts toward the peak this workload reports.
    auto lt = std::make_unique<blaslt_context>(workspace_bytes);
    cfg_.dropout_seed = ctx.seed * 1000003ull + 17;
    auto m = std::make_unique<transformer::model>(*lt, cfg_);
    if (weights_ == "random") {
      m->init_random(ctx.seed, ctx.stream);
    } else {
      m->load_weights(weights_, ctx.stream);
      m->fill_inputs(ctx.seed, ctx.stream);
    }
    // Pick the fastest attention kernel on the real shapes (no allocation; a few dozen launches).
    std::string forced;
    if (ctx.forced_tuning) {
      const auto it = ctx.forced_tuning->find("attention");
      if (it == ctx.forced_tuning->end() || !it->is_string())
        throw input_error("--tuning-from: the recorded transformer tuning has no \"attention\" kernel name");
      forced = it->get<std::string>();
    }
    if (cfg_.backward) m->fill_grad_output(ctx.seed * 31 + 29, ctx.stream);  // G, fixed for the run
    tuning_ = m->tune_attention(ctx.seed + 13, ctx.stream, ctx.forced_tuning ? &forced : nullptr);
    attention_ = kernels::transformer_memory::attention_variant_name(m->cfg().attention);
    CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(ctx.stream));
    lt_ = std::move(lt);
    model_ = std::move(m);
  }

  validation_outcome verify(run_context& ctx) override {
    model_->forward(ctx.stream);
    validation_outcome big = transformer::check_finite(*model_);
    if (cfg_.backward) {
      model_->backward(ctx.stream);
      const validation_outcome g = transformer::check_gradients_finite(*model_);
      big.passed = big.passed && g.passed;
      big.message += "; " + g.message;
    }
    if (const std::string dir = transformer::torch_dump_dir(); !dir.empty())
      transformer::dump_for_torch(*model_, dir + "/" + transformer::torch_dump_file_name(id_), id_);
    // The small shape shares the cuBLASLt context (and its workspace) with the full-size model.
    // ... and the attention kernel the tuner chose, so the reference check covers what is timed.
    transformer::config small_cfg = transformer::validation_config(cfg_.dtype);
    small_cfg.attention = model_->cfg().attention;
    small_cfg.mode = cfg_.mode;  // train: the same dropout rate, and the reference draws the same masks
    small_cfg.dropout = cfg_.dropout;
    small_cfg.dropout_seed = cfg_.dropout_seed + 1;
    small_cfg.backward = cfg_.backward;
    transformer::model small(*lt_, small_cfg);
    small.init_random(ctx.seed + 101, ctx.stream);
    if (small_cfg.backward) small.fill_grad_output(ctx.seed + 103, ctx.stream);
    const transformer::host_snapshot snap = transformer::snapshot(small);
    validation_outcome out =
        transformer::compare_with_reference(small, snap, ctx.stream, transformer::validation_tolerance(cfg_.dtype));
    if (cfg_.backward) {  // the forward above left small's saved tensors in place
      small.backward(ctx.stream);
      const validation_outcome g = transformer::compare_gradients(small, snap, transformer::gradient_tolerance());
      out.passed = out.passed && g.passed;
      out.message += "; " + g.message;
    }
    out.passed = out.passed && big.passed;
    out.message = out.message + "; " + big.message + "; " + tuning_;
    return out;
  }

  void run(cudaStream_t stream) override {
    model_->forward(stream);
    if (cfg_.backward) model_->backward(stream);
  }

  // Backward rows: after each timed repetition one more forward + backward, split by events into
  // forward_ms and backward_ms (time_ms stays the harness's measurement of the two together).
  void after_repetition(run_context& ctx) override {
    if (!cfg_.backward) return;
    cuda_event start, mid, stop;
    start.record(ctx.stream);
    model_->forward(ctx.stream);
    mid.record(ctx.stream);
    model_->backward(ctx.stream);
    stop.record(ctx.stream);
    CUDABENCH_CHECK_CUDA(cudaEventSynchronize(stop.get()));
    forward_ms_.push_back(mid.since(start));
    backward_ms_.push_back(stop.since(mid));
  }

  metric_list metrics(const measurement& m) const override {
    const double tokens = static_cast<double>(cfg_.batch) * cfg_.src_len;
    metric_list out = {{"peak_memory_mb", make_metric("MiB", better::lower, {m.peak_memory_bytes / 1048576.0})},
                       {"time_ms", time_metric(m.per_run_ms)},
                       {"tokens_per_s", rate_metric("tokens/s", tokens, 1.0, m.per_run_ms)}};
    if (!backward_ms_.empty()) {
      out.emplace_back("forward_ms", make_metric("ms", better::lower, forward_ms_));
      out.emplace_back("backward_ms", make_metric("ms", better::lower, backward_ms_));
    }
    return out;
  }

  nlohmann::ordered_json tuning() const override { return {{"attention", attention_}}; }

  void teardown() override {
    model_.reset();
    lt_.reset();
  }

 private:
  transformer::config cfg_;
  std::string id_;
  std::string weights_;
  std::string tuning_;                            // the attention tuner's summary, reported in the validation message
  std::string attention_;                         // the kernel it chose, recorded as the workload's tuning
  std::vector<double> forward_ms_, backward_ms_;  // backward rows: one pair per repetition

  std::unique_ptr<blaslt_context> lt_;  // declared before model_: destroyed after it
  std::unique_ptr<transformer::model> model_;
};

}  // namespace

std::unique_ptr<workload> make_transformer_memory(const workload_spec& spec) {
  return std::make_unique<transformer_memory_workload>(spec);
}

}  // namespace cudabench
