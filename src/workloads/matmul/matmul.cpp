// See matmul.hpp. The plan keeps several of the heuristic's candidates (lt_matmul::candidates)
// and times them once at setup: the heuristic's first choice is not always the fastest, and
// picking the measured best is what lets us match or beat frameworks that call the same library.
#include "workloads/matmul/matmul.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include <cublasLt.h>
#include <fmt/format.h>

#include "cudabench/energy_metrics.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/gpu/blaslt.hpp"
#include "cudabench/gpu/blaslt_algo.hpp"
#include "cudabench/gpu/cuda_check.hpp"
#include "cudabench/gpu/dtype_cuda.hpp"
#include "cudabench/gpu/timing.hpp"
#include "cudabench/gpu/tuner_timer.hpp"
#include "cudabench/pick_fastest.hpp"
#include "cudabench/tuner_measure.hpp"
#include "kernels/common/random_fill.cuh"
#include "kernels/matmul/reference_gemm.cuh"
#include "workloads/matmul/matmul_workload.hpp"

namespace cudabench {

std::unique_ptr<workload> make_matmul(const workload_spec& spec) { return std::make_unique<matmul_workload>(spec); }

dtype matmul_dtype_from_string(const std::string& s) {
  return parse_dtype(s, "matmul", {dtype::fp32, dtype::tf32, dtype::fp16, dtype::bf16, dtype::fp8_e4m3});
}

// Error measure (matmul.cpp check_output): |got - ref| / max(|ref|, ||a∘b||_2), where ref is the
// exact dot product of the stored inputs and ||a∘b||_2 = sqrt(sum_l (a_l b_l)^2) is the size of its
// terms. Output rounding is bounded by u_out·|ref|, so it contributes <= u_out whatever the
// magnitude; accumulation errors scale with the terms, so where the sum cancels (|ref| << terms)
// they are measured against the terms rather than blowing up. Tolerances, u = unit roundoff:
//  - every dtype accumulates in fp32: ~u32·sqrt(k) for a random-walk of k roundings, x8 margin;
//    at k = 8192 that is 4e-5, still 10x below what a TF32 slip would give, so fp32 means FP32.
//  - tf32: the tensor core rounds fp32 inputs to a 10-bit mantissa: each product is off by up to
//    ~2^-10 relative (biased if truncated); over 1024 samples the worst is ~2-3e-3 -> 5e-3.
//  - fp16 / bf16 / fp8 (bf16 out): output rounding (u = 2^-11, 2^-8, 2^-8) dominates; split-K
//    algorithms may also round partial sums to the output type, so allow ~5u (8u for fp8, whose
//    tensor-core accumulation is not a full fp32 one).
double matmul_tolerance(dtype d, std::int64_t k) {
  const double u32 = std::ldexp(1.0, -24);
  const double accumulation = 8 * u32 * std::sqrt(static_cast<double>(k)) + 1e-6;
  switch (d) {
    case dtype::fp32: return accumulation;
    case dtype::tf32: return 5e-3 + accumulation;
    case dtype::fp16: return 10 * std::ldexp(1.0, -11) + accumulation;    // ~4.9e-3
    case dtype::bf16: return 5 * std::ldexp(1.0, -8) + accumulation;      // ~2.0e-2
    case dtype::fp8_e4m3: return 8 * std::ldexp(1.0, -8) + accumulation;  // ~3.1e-2
  }
  return 0;
}

namespace {

// The inputs are `d` (tf32: fp32 storage); the output is too, except that fp8 writes bf16.
dtype output_dtype(dtype d) { return d == dtype::fp8_e4m3 ? dtype::bf16 : storage_dtype(d); }

gemm_types lt_types_for(dtype d) {
  gemm_types t = gemm_types_of(d);
  t.c = cuda_data_type(output_dtype(d));
  return t;
}

void fill_input(dtype d, void* p, std::size_t count, std::uint64_t seed, cudaStream_t stream) {
  // Uniform in [-1, 1): every value is representable in e4m3 too (max 448), so no scaling needed.
  switch (d) {
    case dtype::fp32:
    case dtype::tf32: return kernels::fill_uniform(static_cast<float*>(p), count, seed, -1.f, 1.f, stream);
    case dtype::fp16: return kernels::fill_uniform(static_cast<__half*>(p), count, seed, -1.f, 1.f, stream);
    case dtype::bf16: return kernels::fill_uniform(static_cast<__nv_bfloat16*>(p), count, seed, -1.f, 1.f, stream);
    case dtype::fp8_e4m3: return kernels::fill_uniform(static_cast<__nv_fp8_e4m3*>(p), count, seed, -1.f, 1.f, stream);
  }
}

constexpr int max_candidates = 16;  // heuristic candidates timed at setup
constexpr int max_samples = 1024;

}  // namespace

// The planned GEMM (descriptors and the algorithm chosen at setup) and how it was chosen.
struct matmul_lt_plan {
  lt_matmul gemm;      // cuBLAS's A is our B, its B our A (see setup)
  int candidate = -1;  // index among the heuristic's candidates
  int candidates = 0;  // how many there were
  std::string choice;  // which candidate won and how, for the validation message

  explicit matmul_lt_plan(lt_matmul g) : gemm(std::move(g)) {}
};

matmul_workload::matmul_workload(const workload_spec& spec)
    : dtype_(matmul_dtype_from_string(spec.get_string("dtype"))),
      m_(spec.get_int("m")),
      n_(spec.get_int("n")),
      k_(spec.get_int("k")),
      batch_(1) {
  const std::int64_t batch = spec.has("batch") ? spec.get_int("batch") : 1;
  constexpr std::int64_t int32_max = std::numeric_limits<std::int32_t>::max();
  if (m_ < 1 || n_ < 1 || k_ < 1 || batch < 1 || m_ > int32_max || n_ > int32_max || batch > int32_max)
    throw input_error(fmt::format("{}: m, n, k and batch must be in [1, 2^31)", spec.id));
  batch_ = static_cast<int>(batch);
}

matmul_workload::~matmul_workload() = default;

std::size_t matmul_workload::output_element_bytes() const { return dtype_bytes(output_dtype(dtype_)); }

void matmul_workload::setup(run_context& ctx) {
  if (dtype_ == dtype::fp8_e4m3) {
    cudaDeviceProp local{};
    const cudaDeviceProp* props = ctx.props;
    if (!props) {
      CUDABENCH_CHECK_CUDA(cudaGetDeviceProperties(&local, ctx.device));
      props = &local;
    }
    if (props->major * 10 + props->minor < 89)
      throw unsupported_error(
          fmt::format("matmul fp8 needs compute capability 8.9+ (this GPU is {}.{})", props->major, props->minor));
  }

  const std::size_t batch = static_cast<std::size_t>(batch_);
  const std::size_t a_count = batch * m_ * k_, b_count = batch * n_ * k_, c_count = batch * m_ * n_;
  lt_ = std::make_unique<blaslt_context>(std::size_t{64} << 20);  // generous: lets split-K algorithms compete
  a_ = device_buffer<std::byte>(a_count * dtype_bytes(dtype_));
  b_ = device_buffer<std::byte>(b_count * dtype_bytes(dtype_));
  c_ = device_buffer<std::byte>(c_count * dtype_bytes(output_dtype(dtype_)));
  fill_input(dtype_, a_.get(), a_count, kernels::splitmix64(ctx.seed + 1), ctx.stream);
  fill_input(dtype_, b_.get(), b_count, kernels::splitmix64(ctx.seed + 2), ctx.stream);

  // C = A·B^T is the linear-layer form (see matmul.hpp): cuBLAS's column-major view is
  // C^T[n x m] = op_T(B)[n x k] · A^T[k x m], so B is its A and our A its B.
  const gemm_shape shape = linear_shape(m_, n_, k_, batch_);
  plan_ = std::make_unique<matmul_lt_plan>(lt_matmul::describe(*lt_, shape, lt_types_for(dtype_)));
  cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
  const std::vector<cublasLtMatmulAlgo_t> candidates = plan_->gemm.candidates(max_candidates, &st);
  if (candidates.empty())
    throw unsupported_error(fmt::format("cuBLASLt has no {} algorithm for m={} n={} k={} batch={} ({})",
                                        dtype_name(dtype_), m_, n_, k_, batch_, cublasGetStatusName(st)));

  // Time the candidates (the inputs are already filled, so this is the real problem).
  auto launch = [&](const cublasLtMatmulAlgo_t& algo) {
    return plan_->gemm.try_run(algo, b_.get(), a_.get(), c_.get(), ctx.stream);
  };
  CUDABENCH_CHECK_CUBLAS(launch(candidates[0]));
  plan_->candidates = static_cast<int>(candidates.size());
  if (ctx.forced_tuning) {
    // Replay: the candidate whose configuration matches the recorded one, or an error (a different
    // cuBLASLt may not offer it, and silently tuning instead would defeat holding tuning fixed).
    const auto rec = ctx.forced_tuning->find("algorithm");
    if (rec == ctx.forced_tuning->end() || !rec->is_object())
      throw input_error("--tuning-from: the recorded matmul tuning has no \"algorithm\" object");
    plan_->candidate = find_recorded_algo(candidates, *rec);
    if (plan_->candidate < 0)
      throw input_error(
          fmt::format("--tuning-from: the recorded cuBLASLt algorithm {} is not among this build's {} "
                      "candidates for this GEMM",
                      rec->dump(), candidates.size()));
    plan_->gemm.use(candidates[static_cast<std::size_t>(plan_->candidate)]);
    plan_->choice = fmt::format("candidate {} of {} replayed from --tuning-from", plan_->candidate, candidates.size());
  } else {
    // Warm up with the heuristic's first candidate for at least 30 ms of GPU time (batches that
    // double), so clocks have left idle before anything is compared: a 1024^3 GEMM is the first
    // workload of a process, and an A/A run saw its tuner pick differently in every process when
    // the candidates were timed from a cold start in 0.4 ms slices. The last batch sizes the timing.
    double warm_ms = 0, one_run_ms = 0;
    for (int batch = 1; warm_ms < 30.0 && batch <= (1 << 16); batch *= 2) {
      const float ms = time_enqueued_ms(ctx.stream, batch, [&] { CUDABENCH_CHECK_CUBLAS(launch(candidates[0])); });
      warm_ms += ms;
      one_run_ms = static_cast<double>(ms) / batch;
    }
    plan_->gemm.use(candidates[0]);
    plan_->candidate = 0;
    plan_->choice = fmt::format("heuristic's first of {} candidates", candidates.size());
    // Skip tuning when there is nothing to choose from or one run is so long that tuning would
    // dominate setup (> 100 ms per run); the heuristic's first choice stands.
    if (candidates.size() > 1 && one_run_ms < 100.0) {
      // Each measurement covers >= 2 ms (tuner_measure.hpp) and >= 3 runs of GPU time, as replays
      // of a captured graph of the candidate (tuner_timer.hpp: a loop of 5 us launches would time
      // the host); five interleaved passes for short problems, three for long ones, best pass per
      // candidate: a clock ramp or a one-off stall then hits every candidate alike.
      const double measure_ms = std::max(tuner_measure_ms(), 3.0 * one_run_ms);
      const int passes = measure_ms < 5.0 ? 5 : 3;
      const std::vector<double> per_run = time_candidates(
          ctx.stream, candidates.size(), passes, measure_ms,
          [&](std::size_t i) { CUDABENCH_CHECK_CUBLAS(launch(candidates[i])); },
          [&](std::size_t i) { return launch(candidates[i]) == CUBLAS_STATUS_SUCCESS; });  // else skipped
      std::size_t best = 0;
      try {
        best = pick_fastest(per_run);  // the heuristic's order wins ties (pick_fastest.hpp)
      } catch (const std::invalid_argument&) {
        throw cuda_error(
            fmt::format("cuBLASLt: none of the {} {} candidates ran", candidates.size(), dtype_name(dtype_)));
      }
      plan_->gemm.use(candidates[best]);
      plan_->candidate = static_cast<int>(best);
      plan_->choice = fmt::format("candidate {} of {} timed at setup ({:.4f} ms vs heuristic's first {:.4f} ms)", best,
                                  candidates.size(), per_run[best], per_run[0]);
    }
  }
  plan_->choice += fmt::format(", split-k {}, reduction scheme {}",
                               algo_config_int(plan_->gemm.algorithm(), CUBLASLT_ALGO_CONFIG_SPLITK_NUM),
                               algo_config_int(plan_->gemm.algorithm(), CUBLASLT_ALGO_CONFIG_REDUCTION_SCHEME));
  CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(ctx.stream));
}

nlohmann::ordered_json matmul_workload::tuning() const {
  if (!plan_ || plan_->candidate < 0) return nlohmann::ordered_json::object();
  nlohmann::ordered_json algo = algo_config_json(plan_->gemm.algorithm());
  algo["candidate"] = plan_->candidate;
  algo["of"] = plan_->candidates;
  return {{"algorithm", std::move(algo)}};
}

void matmul_workload::run(cudaStream_t stream) {
  plan_->gemm.run(b_.get(), a_.get(), c_.get(), stream);  // cuBLAS's A is our B (see setup)
}

validation_outcome matmul_workload::verify(run_context& ctx) {
  // Poison the output (0xFF bytes are NaN in fp32, fp16 and bf16) so a GEMM that writes nothing fails.
  CUDABENCH_CHECK_CUDA(cudaMemsetAsync(c_.get(), 0xFF, c_.bytes(), ctx.stream));
  run(ctx.stream);
  return check_output(ctx);
}

validation_outcome matmul_workload::check_output(run_context& ctx) {
  // Which entries: all of them for small outputs; otherwise the corners of the first and last
  // batch plus a fixed pseudo-random spread.
  std::vector<kernels::matmul::gemm_sample> samples;
  const std::int64_t total = static_cast<std::int64_t>(batch_) * m_ * n_;
  auto add = [&](std::int64_t b, std::int64_t i, std::int64_t j) {
    samples.push_back({static_cast<std::int32_t>(b), static_cast<std::int32_t>(i), static_cast<std::int32_t>(j)});
  };
  if (total <= max_samples) {
    for (std::int64_t b = 0; b < batch_; ++b)
      for (std::int64_t i = 0; i < m_; ++i)
        for (std::int64_t j = 0; j < n_; ++j) add(b, i, j);
  } else {
    for (std::int64_t b : {std::int64_t{0}, std::int64_t{batch_ - 1}})
      for (std::int64_t i : {std::int64_t{0}, m_ - 1})
        for (std::int64_t j : {std::int64_t{0}, n_ - 1}) add(b, i, j);
    for (std::uint64_t s = 0; samples.size() < static_cast<std::size_t>(max_samples); ++s) {
      const std::uint64_t base = 0xC0FFEEull + 3 * s;
      add(static_cast<std::int64_t>(kernels::splitmix64(base) % static_cast<std::uint64_t>(batch_)),
          static_cast<std::int64_t>(kernels::splitmix64(base + 1) % static_cast<std::uint64_t>(m_)),
          static_cast<std::int64_t>(kernels::splitmix64(base + 2) % static_cast<std::uint64_t>(n_)));
    }
  }
  const int count = static_cast<int>(samples.size());
  device_buffer<kernels::matmul::gemm_sample> d_samples(samples.size());
  device_buffer<kernels::matmul::gemm_sample_result> d_results(samples.size());
  CUDABENCH_CHECK_CUDA(
      cudaMemcpyAsync(d_samples.get(), samples.data(), d_samples.bytes(), cudaMemcpyHostToDevice, ctx.stream));
  kernels::matmul::reference_gemm_samples(storage_dtype(dtype_), output_dtype(dtype_), a_.get(), b_.get(), c_.get(), m_,
                                          n_, k_, d_samples.get(), count, d_results.get(), ctx.stream);
  std::vector<kernels::matmul::gemm_sample_result> results(samples.size());
  CUDABENCH_CHECK_CUDA(
      cudaMemcpyAsync(results.data(), d_results.get(), d_results.bytes(), cudaMemcpyDeviceToHost, ctx.stream));
  CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(ctx.stream));

  // See matmul_tolerance() for the error measure and why.
  double worst = 0;
  int worst_at = 0;
  for (int s = 0; s < count; ++s) {
    const auto& r = results[s];
    double err = std::numeric_limits<double>::infinity();  // NaN/inf output (e.g. the poison survived)
    if (std::isfinite(r.got)) {
      const double denom = std::max(std::fabs(r.ref), r.l2);
      err = denom > 0 ? std::fabs(r.got - r.ref) / denom : std::fabs(r.got - r.ref);
    }
    if (!(err <= worst)) {
      worst = err;
      worst_at = s;
    }
  }
  validation_outcome out;
  out.tolerance = matmul_tolerance(dtype_, k_);
  out.passed = worst <= out.tolerance;
  // JSON has no infinity: a non-finite output is reported as the largest double.
  out.max_rel_error = std::isfinite(worst) ? worst : std::numeric_limits<double>::max();
  const auto& w = samples[worst_at];
  const auto& wr = results[worst_at];
  out.message = fmt::format(
      "{} of {} output entries vs a double-precision reference over the stored inputs; worst |got-ref|/max(|ref|,"
      "||a*b||_2) = {:.3g} (tolerance {:.3g}) at batch {} row {} col {}: got {:.9g}, reference {:.9g}; {}",
      count, total, worst, out.tolerance, w.batch, w.row, w.col, wr.got, wr.ref, plan_ ? plan_->choice : "");
  return out;
}

metric_list matmul_workload::metrics(const measurement& m) const {
  const double flops =
      2.0 * static_cast<double>(m_) * static_cast<double>(n_) * static_cast<double>(k_) * static_cast<double>(batch_);
  metric_list out;
  out.emplace_back("time_ms", time_metric(m.per_run_ms));
  out.emplace_back("tflops", rate_metric("TFLOP/s", flops, 1e12, m.per_run_ms));
  // TFLOP per joule is TFLOP/s per watt: the work a unit of energy buys, whatever the clock did.
  if (auto eff = work_per_joule_metric("TFLOP/s/W", flops / 1e12, m.energy_j_per_run))
    out.emplace_back("tflops_per_w", std::move(*eff));
  return out;
}

void matmul_workload::teardown() {
  plan_.reset();
  a_.reset();
  b_.reset();
  c_.reset();
  lt_.reset();
}

}  // namespace cudabench
