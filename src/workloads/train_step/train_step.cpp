// See train_step.hpp.
//   setup:   cuBLASLt context and the trainer (all buffers and GEMM plans), seeded init.
//   verify:  (1) first-step gradients of the small validation shape vs the CPU double reference
//            (the reported max_rel_error); (2) its loss over 50 steps falls below 0.6x the first;
//            (3) full size: sampled dW_0 entries vs host double dot products, and the first step
//            is finite (no overflow: the loss scale is unchanged and the step counted).
//   run:     one step: forward, loss, backward, overflow check, AdamW, scale update.
//   metrics: step_ms (headline), samples_per_s = batch / step time,
//            tflops = 6 * batch * layers * hidden^2 / step time, skipped_steps = steps the loss
//            scaler skipped (overflow) during the timed repetitions: the scaler's device counter,
//            read once before and once after them. Any skip fails validation: a skipped step does
//            no optimizer work, so the time would not be a training step's.
// CUDABENCH_TRAIN_STEP_FORCE_SCALE=S (tests only) sets the loss scale to S right before the timed
// repetitions, so a huge S (1e38) makes them overflow: the GPU test of the check above.
#include "workloads/train_step/train_step.hpp"

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "cudabench/gpu/blaslt.hpp"
#include "cudabench/gpu/cuda_check.hpp"
#include "workloads/train_step/mlp_trainer.hpp"
#include "workloads/train_step/validate.hpp"

namespace cudabench {
namespace {

constexpr int loss_steps = 50;
constexpr double loss_ratio = 0.6;  // a numpy model of the validation shape reaches ~0.25

class train_step_workload final : public workload {
 public:
  explicit train_step_workload(const workload_spec& spec) {
    cfg_.kind = parse_dtype(spec.get_string("dtype"), "train_step", {dtype::fp16, dtype::bf16});
    cfg_.layers = static_cast<int>(spec.get_int("layers"));
    cfg_.hidden = static_cast<int>(spec.get_int("hidden"));
    cfg_.batch = static_cast<int>(spec.get_int("batch"));
  }

  void setup(run_context& ctx) override {
    auto lt = std::make_unique<blaslt_context>();
    auto t = std::make_unique<train::mlp_trainer>(*lt, cfg_);
    t->init(ctx.seed, ctx.stream);
    lt_ = std::move(lt);
    trainer_ = std::move(t);
  }

  validation_outcome verify(run_context& ctx) override {
    const train::mlp_config small_cfg = train::validation_config(cfg_.kind);
    validation_outcome grads, falls;
    {
      train::mlp_trainer small(*lt_, small_cfg);
      small.init(ctx.seed + 17, ctx.stream);
      grads = train::check_first_step_gradients(small, ctx.stream, train::gradient_tolerance(cfg_.kind));
      small.init(ctx.seed + 17, ctx.stream);
      falls = train::check_loss_falls(train::loss_curve(small, loss_steps, ctx.stream), loss_ratio);
    }
    trainer_->forward_backward(ctx.stream);
    const validation_outcome sampled = train::check_sampled_first_layer_grad(*trainer_, 64, 1e-3);
    const kernels::train_step::scaler_state before = trainer_->read_scaler();
    trainer_->optimizer_step(ctx.stream);
    CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(ctx.stream));
    const kernels::train_step::scaler_state after = trainer_->read_scaler();
    const float loss = trainer_->read_loss();
    const bool full_ok = std::isfinite(loss) && after.step == before.step + 1 && after.scale == before.scale;
    skipped_before_timing_ = after.skipped;  // before_timing() moves it past warm-up

    validation_outcome out = grads;
    out.passed = grads.passed && falls.passed && sampled.passed && full_ok;
    out.message =
        fmt::format("{}; {}; {}; full-size first step: loss {:.5g}, scale {} -> {}, step {} -> {}", grads.message,
                    falls.message, sampled.message, loss, before.scale, after.scale, before.step, after.step);
    return out;
  }

  void run(cudaStream_t stream) override { trainer_->step(stream); }

  void before_timing(run_context& /*ctx*/) override {
    if (const char* forced = std::getenv("CUDABENCH_TRAIN_STEP_FORCE_SCALE")) trainer_->set_scale(std::stof(forced));
    skipped_before_timing_ = trainer_->read_scaler().skipped;
  }

  metric_list metrics(const measurement& m) const override {
    const kernels::train_step::scaler_state st = trainer_->read_scaler();  // the one read after the repetitions
    const int skipped = st.skipped - skipped_before_timing_;
    if (skipped > 0)
      throw validation_error(fmt::format(
          "the loss scaler skipped {} of the timed steps (inf/nan gradients; loss scale now {}): a skipped step "
          "does no optimizer work, so its time is not a training step's",
          skipped, st.scale));
    return {{"step_ms", time_metric(m.per_run_ms)},
            {"samples_per_s", rate_metric("samples/s", cfg_.batch, 1.0, m.per_run_ms)},
            {"tflops", rate_metric("TFLOP/s", cfg_.flops_per_step(), 1e12, m.per_run_ms)},
            {"skipped_steps", make_metric("steps", better::lower, {static_cast<double>(skipped)})}};
  }

  void teardown() override {
    trainer_.reset();
    lt_.reset();
  }

 private:
  train::mlp_config cfg_;
  int skipped_before_timing_ = 0;       // the scaler's skip counter when timing began
  std::unique_ptr<blaslt_context> lt_;  // declared before trainer_: destroyed after it
  std::unique_ptr<train::mlp_trainer> trainer_;
};

}  // namespace

std::unique_ptr<workload> make_train_step(const workload_spec& spec) {
  return std::make_unique<train_step_workload>(spec);
}

}  // namespace cudabench
