// See mlp_trainer.hpp. GEMMs are row-major views handed to column-major cuBLASLt:
//   forward  Y[B,H] = X[B,H] W[H,H]^T            make_linear(B, H, H)
//   dX[B,Hin] = dZ[B,Hout] W[Hout,Hin]           col-major dX^T = W^T dZ^T: m=Hin n=B k=Hout, N/N
//   dW[Hout,Hin] = dZ[B,Hout]^T X[B,Hin]         col-major dW^T = X^T dZ:   m=Hin n=Hout k=B, N/T
#include "workloads/train_step/mlp_trainer.hpp"

#include <cmath>

#include "cudabench/errors.hpp"
#include "cudabench/gpu/cuda_check.hpp"
#include "kernels/common/random_fill.cuh"
#include "kernels/train_step/loss.cuh"
#include "kernels/train_step/relu_backward.cuh"

namespace cudabench::train {
namespace {

gemm_types types16(dtype k) { return gemm_types_of(k); }
// 16-bit inputs, fp32 output: weight gradients go straight into the fp32 master layout.
gemm_types types16_out32(dtype k) {
  gemm_types t = types16(k);
  t.c = CUDA_R_32F;
  return t;
}

lt_matmul plan_dx(const blaslt_context& lt, const mlp_config& c) {
  gemm_shape s;
  s.trans_a = CUBLAS_OP_N;
  s.trans_b = CUBLAS_OP_N;
  s.m = c.hidden;
  s.n = c.batch;
  s.k = c.hidden;
  s.lda = c.hidden;
  s.ldb = c.hidden;
  s.ldc = c.hidden;
  return lt_matmul(lt, s, types16(c.kind));
}

lt_matmul plan_dw(const blaslt_context& lt, const mlp_config& c) {
  gemm_shape s;
  s.trans_a = CUBLAS_OP_N;
  s.trans_b = CUBLAS_OP_T;
  s.m = c.hidden;
  s.n = c.hidden;
  s.k = c.batch;
  s.lda = c.hidden;
  s.ldb = c.hidden;
  s.ldc = c.hidden;
  return lt_matmul(lt, s, types16_out32(c.kind));
}

void fill16(void* p, std::size_t n, std::uint64_t seed, float lo, float hi, dtype k, cudaStream_t s) {
  if (k == dtype::fp16) kernels::fill_uniform(static_cast<__half*>(p), n, seed, lo, hi, s);
  else kernels::fill_uniform(static_cast<__nv_bfloat16*>(p), n, seed, lo, hi, s);
}

}  // namespace

mlp_trainer::mlp_trainer(const blaslt_context& lt, const mlp_config& cfg)
    : lt_(lt),
      cfg_(cfg),
      master_(cfg.params()),
      grad_(cfg.params()),
      m_(cfg.params()),
      v_(cfg.params()),
      target_(cfg.acts()),
      loss_(1),
      w16_(cfg.params() * 2),
      acts_(cfg.acts() * 2 * static_cast<std::size_t>(cfg.layers + 1)),
      dgrad_(cfg.acts() * 2 * 2),
      state_(1),
      fwd_relu_(make_linear(lt, cfg.batch, cfg.hidden, cfg.hidden, types16(cfg.kind), gemm_epilogue::relu)),
      fwd_last_(make_linear(lt, cfg.batch, cfg.hidden, cfg.hidden, types16(cfg.kind))),
      bwd_dx_(plan_dx(lt, cfg)),
      bwd_dw_(plan_dw(lt, cfg)) {
  if (cfg.layers < 1 || cfg.hidden < 8 || cfg.batch < 1) throw std::invalid_argument("mlp_trainer: bad shape");
}

void* mlp_trainer::act(int l) const { return acts_.get() + static_cast<std::size_t>(l) * cfg_.acts() * 2; }

void mlp_trainer::init(std::uint64_t seed, cudaStream_t s) {
  const float w_range = std::sqrt(6.f / static_cast<float>(cfg_.hidden));
  kernels::fill_uniform(master(), cfg_.params(), seed * 131 + 1, -w_range, w_range, s);
  kernels::train_step::cast_from_float(weights16(), master(), cfg_.params(), cfg_.kind, s);
  fill16(input(), cfg_.acts(), seed * 131 + 2, -1.f, 1.f, cfg_.kind, s);
  CUDABENCH_CHECK_CUDA(cudaMemsetAsync(m_.get(), 0, m_.bytes(), s));
  CUDABENCH_CHECK_CUDA(cudaMemsetAsync(v_.get(), 0, v_.bytes(), s));
  CUDABENCH_CHECK_CUDA(cudaMemsetAsync(grad_.get(), 0, grad_.bytes(), s));
  kernels::train_step::scaler_state st;
  st.scale = cfg_.init_scale;
  CUDABENCH_CHECK_CUDA(cudaMemcpyAsync(state_.get(), &st, sizeof(st), cudaMemcpyHostToDevice, s));

  // Target: a fixed random linear map of the input, T = X_0 A^T (fp32 out), var(T) ~ var(X_0).
  {
    device_buffer<std::byte> a(cfg_.params_per_layer() * 2);
    const float a_range = std::sqrt(3.f / static_cast<float>(cfg_.hidden));
    fill16(a.get(), cfg_.params_per_layer(), seed * 131 + 3, -a_range, a_range, cfg_.kind, s);
    const lt_matmul map = make_linear(lt_, cfg_.batch, cfg_.hidden, cfg_.hidden, types16_out32(cfg_.kind));
    map.run(a.get(), input(), target_.get(), s);
    CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(s));  // `a` is freed at the end of this scope
  }
}

void mlp_trainer::forward_backward(cudaStream_t s) {
  const int L = cfg_.layers;
  const std::size_t wstride = cfg_.params_per_layer() * 2;  // bytes per 16-bit layer
  const auto* w16 = static_cast<const std::byte*>(weights16());
  for (int l = 0; l < L; ++l) {
    const lt_matmul& g = l + 1 < L ? fwd_relu_ : fwd_last_;
    g.run(w16 + l * wstride, act(l), act(l + 1), s);
  }
  CUDABENCH_CHECK_CUDA(cudaMemsetAsync(loss_.get(), 0, sizeof(float), s));
  std::byte* buf[2] = {dgrad_.get(), dgrad_.get() + cfg_.acts() * 2};
  int cur = 0;
  kernels::train_step::mse_loss_backward(act(L), target(), buf[cur], cfg_.acts(), &state_.get()->scale, loss_.get(),
                                         cfg_.kind, s);
  for (int l = L - 1; l >= 0; --l) {
    // buf[cur] holds dZ_l (scaled). dW_l = dZ_l^T X_l, written in fp32 into the gradient arena.
    bwd_dw_.run(act(l), buf[cur], grad_.get() + static_cast<std::size_t>(l) * cfg_.params_per_layer(), s);
    if (l == 0) break;
    bwd_dx_.run(w16 + l * wstride, buf[cur], buf[1 - cur], s);
    kernels::train_step::relu_backward_inplace(buf[1 - cur], act(l), cfg_.acts(), cfg_.kind, s);
    cur = 1 - cur;
  }
  dz_first_ = buf[cur];
}

void mlp_trainer::optimizer_step(cudaStream_t s) {
  kernels::train_step::find_nonfinite(grads(), cfg_.params(), state_.get(), s);
  kernels::train_step::adamw_step(master(), weights16(), grads(), m_.get(), v_.get(), cfg_.params(), state_.get(),
                                  cfg_.hp, cfg_.kind, s);
  kernels::train_step::scaler_update(state_.get(), cfg_.scaler, s);
}

kernels::train_step::scaler_state mlp_trainer::read_scaler() const {
  kernels::train_step::scaler_state st;
  CUDABENCH_CHECK_CUDA(cudaMemcpy(&st, state_.get(), sizeof(st), cudaMemcpyDeviceToHost));
  return st;
}

void mlp_trainer::set_scale(float scale) {
  kernels::train_step::scaler_state st = read_scaler();
  st.scale = scale;
  CUDABENCH_CHECK_CUDA(cudaMemcpy(state_.get(), &st, sizeof(st), cudaMemcpyHostToDevice));
}

float mlp_trainer::read_loss() const {
  float v = 0;
  CUDABENCH_CHECK_CUDA(cudaMemcpy(&v, loss_.get(), sizeof(v), cudaMemcpyDeviceToHost));
  return v;
}

}  // namespace cudabench::train
