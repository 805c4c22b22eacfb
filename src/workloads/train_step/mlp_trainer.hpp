// A mixed-precision training step on an MLP, all on the device with no host sync:
//   forward:   X_{l+1} = relu(X_l W_l^T) for l < L-1, Y = X_{L-1} W_{L-1}^T   (16-bit, fp32 accumulate;
//              bias-free Linear(hidden, hidden) layers -- nn.Linear(h, h, bias=False))
//   loss:      MSE(Y, T) in fp32 against a fixed target T = X_0 A^T (a fixed random linear map)
//   backward:  dY = scale * dL/dY (16-bit); dW_l = dZ_l^T X_l (fp32 out); dX_l = dZ_l W_l (16-bit);
//              dZ_{l-1} = dX_l * [X_l > 0]
//   optimizer: overflow check -> AdamW on fp32 master weights (skipped on inf/nan) -> 16-bit
//              copies -> loss-scale update (GradScaler: 2^16 start, x0.5 on overflow, x2 after
//              2000 good steps).
// Memory: fp32 master, grad, Adam m and v (16 B/param) + 16-bit copy (2 B/param), L+1 activations
// and two gradient buffers of batch x hidden 16-bit values, the fp32 target.
#pragma once
#include <cstdint>
#include <vector>

#include <cuda_runtime.h>

#include "cudabench/device_memory.hpp"
#include "cudabench/gpu/blaslt.hpp"
#include "kernels/train_step/adamw.cuh"
#include "kernels/train_step/cast.cuh"
#include "kernels/train_step/loss_scaler.cuh"

namespace cudabench::train {

struct mlp_config {
  int layers = 8;
  int hidden = 8192;
  int batch = 2048;
  dtype kind = dtype::fp16;
  kernels::train_step::adamw_hparams hp{};
  kernels::train_step::scaler_config scaler{};
  float init_scale = 65536.f;

  std::size_t params_per_layer() const { return static_cast<std::size_t>(hidden) * hidden; }
  std::size_t params() const { return params_per_layer() * layers; }
  std::size_t acts() const { return static_cast<std::size_t>(batch) * hidden; }
  // 6 * batch * sum(in*out): forward 2, dX 2, dW 2 FLOPs per weight per sample (the usual
  // convention; layer 0's dX is not needed and not computed, but counted).
  double flops_per_step() const { return 6.0 * batch * static_cast<double>(params()); }
};

class mlp_trainer {
 public:
  mlp_trainer(const blaslt_context& lt, const mlp_config& cfg);  // allocates everything, plans GEMMs
  // Seeded master weights (He-uniform +-sqrt(6/hidden)), 16-bit copies, input X_0 in [-1, 1),
  // target T = X_0 A^T with A uniform +-sqrt(3/hidden), m = v = 0, fresh scaler state.
  // Synchronous (setup only; it briefly allocates A).
  void init(std::uint64_t seed, cudaStream_t stream);

  void forward_backward(cudaStream_t stream);  // loss_sum and the scaled fp32 gradients
  void optimizer_step(cudaStream_t stream);    // overflow check, AdamW (or skip), scaler update
  void step(cudaStream_t stream) {
    forward_backward(stream);
    optimizer_step(stream);
  }

  const mlp_config& cfg() const { return cfg_; }
  float* master() const { return master_.get(); }                 // [layers][hidden out][hidden in]
  float* grads() const { return grad_.get(); }                    // scaled by the scale of their step
  void* weights16() const { return w16_.get(); }                  // 16-bit copy of master
  void* input() const { return act(0); }                          // X_0 [batch, hidden], 16-bit
  void* act(int l) const;                                         // X_l; act(layers) = Y
  const float* target() const { return target_.get(); }           // [batch, hidden] fp32
  const void* grad_of_first_preact() const { return dz_first_; }  // dZ_0 after a backward, 16-bit
  kernels::train_step::scaler_state* scaler() const { return state_.get(); }
  const float* loss_sum() const { return loss_.get(); }  // MSE of the last forward

  // Synchronous host reads for validation and tests.
  kernels::train_step::scaler_state read_scaler() const;
  void set_scale(float scale);  // synchronous; the test-only forced overflow of train_step
  float read_loss() const;

 private:
  const blaslt_context& lt_;
  mlp_config cfg_;
  device_buffer<float> master_, grad_, m_, v_, target_, loss_;
  device_buffer<std::byte> w16_, acts_, dgrad_;  // acts_: L+1 activations; dgrad_: 2 ping-pong buffers
  device_buffer<kernels::train_step::scaler_state> state_;
  lt_matmul fwd_relu_, fwd_last_, bwd_dx_, bwd_dw_;
  const void* dz_first_ = nullptr;
};

}  // namespace cudabench::train
