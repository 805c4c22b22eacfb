// See attention_backward.cuh. Three launches: delta, then dQ (one thread per query), then dK and
// dV (one thread per key). The rows every thread of a block reads in the same step (k_j, v_j in
// the dQ kernel; q_i, dO_i in the dK/dV kernel) are one address across the warp: broadcasts.
#include "kernels/transformer_memory/attention_backward.cuh"

#include <stdexcept>

#include "cudabench/gpu/cuda_check.hpp"
#include "kernels/transformer_memory/dropout_rng.hpp"

namespace cudabench::kernels::transformer_memory {
namespace {

constexpr int block_rows = 128;

__device__ inline float keep_scale(const attention_backward_args& a, int b, int h, int i, int j) {
  if (a.dropout_threshold == 0) return 1.f;
  const std::uint64_t idx = ((static_cast<std::uint64_t>(b) * a.heads + h) * a.sq + i) * a.sk + j;
  return transformer::dropout_keep(a.dropout_seed, idx, a.dropout_threshold) ? a.dropout_scale : 0.f;
}

// grid (ceil(sq / 128), heads, batch).
template <int HD>
__global__ void __launch_bounds__(block_rows) delta_kernel(attention_backward_args a) {
  const int b = blockIdx.z, h = blockIdx.y, i = blockIdx.x * block_rows + threadIdx.x;
  if (i >= a.sq) return;
  const float* o = a.o + (static_cast<std::int64_t>(b) * a.sq + i) * a.ldo + h * HD;
  const float* g = a.dout + (static_cast<std::int64_t>(b) * a.sq + i) * a.lddo + h * HD;
  float s = 0.f;
#pragma unroll
  for (int e = 0; e < HD; ++e) s = fmaf(o[e], g[e], s);
  a.delta[(static_cast<std::int64_t>(b) * a.heads + h) * a.sq + i] = s;
}

template <int HD>
__global__ void __launch_bounds__(block_rows) dq_kernel(attention_backward_args a, float scale) {
  const int b = blockIdx.z, h = blockIdx.y, i = blockIdx.x * block_rows + threadIdx.x;
  if (i >= a.sq) return;
  float q[HD], g[HD], dq[HD];
  const float* qr = a.q + (static_cast<std::int64_t>(b) * a.sq + i) * a.ldq + h * HD;
  const float* gr = a.dout + (static_cast<std::int64_t>(b) * a.sq + i) * a.lddo + h * HD;
#pragma unroll
  for (int e = 0; e < HD; ++e) {
    q[e] = qr[e];
    g[e] = gr[e];
    dq[e] = 0.f;
  }
  const std::int64_t row = (static_cast<std::int64_t>(b) * a.heads + h);
  const float lse = a.lse[row * a.lse_stride + i], delta = a.delta[row * a.sq + i];
  for (int j = 0; j < a.sk; ++j) {
    const float* kr = a.k + (static_cast<std::int64_t>(b) * a.sk + j) * a.ldk + h * HD;
    const float* vr = a.v + (static_cast<std::int64_t>(b) * a.sk + j) * a.ldv + h * HD;
    float s = 0.f, dpd = 0.f;
#pragma unroll
    for (int e = 0; e < HD; ++e) {
      s = fmaf(q[e], kr[e], s);
      dpd = fmaf(g[e], vr[e], dpd);
    }
    const float p = expf(s * scale - lse);
    const float ds = p * (dpd * keep_scale(a, b, h, i, j) - delta);
#pragma unroll
    for (int e = 0; e < HD; ++e) dq[e] = fmaf(ds, kr[e], dq[e]);
  }
  float* out = a.dq + (static_cast<std::int64_t>(b) * a.sq + i) * a.lddq + h * HD;
#pragma unroll
  for (int e = 0; e < HD; ++e) out[e] = dq[e] * scale;
}

// grid (ceil(sk / 128), heads, batch).
template <int HD>
__global__ void __launch_bounds__(block_rows) dkv_kernel(attention_backward_args a, float scale) {
  const int b = blockIdx.z, h = blockIdx.y, j = blockIdx.x * block_rows + threadIdx.x;
  if (j >= a.sk) return;
  float k[HD], v[HD], dk[HD], dv[HD];
  const float* kr = a.k + (static_cast<std::int64_t>(b) * a.sk + j) * a.ldk + h * HD;
  const float* vr = a.v + (static_cast<std::int64_t>(b) * a.sk + j) * a.ldv + h * HD;
#pragma unroll
  for (int e = 0; e < HD; ++e) {
    k[e] = kr[e];
    v[e] = vr[e];
    dk[e] = dv[e] = 0.f;
  }
  const std::int64_t row = (static_cast<std::int64_t>(b) * a.heads + h);
  for (int i = 0; i < a.sq; ++i) {
    const float* qr = a.q + (static_cast<std::int64_t>(b) * a.sq + i) * a.ldq + h * HD;
    const float* gr = a.dout + (static_cast<std::int64_t>(b) * a.sq + i) * a.lddo + h * HD;
    float s = 0.f, dpd = 0.f;
#pragma unroll
    for (int e = 0; e < HD; ++e) {
      s = fmaf(qr[e], k[e], s);
      dpd = fmaf(gr[e], v[e], dpd);
    }
    const float p = expf(s * scale - a.lse[row * a.lse_stride + i]);
    const float ks = keep_scale(a, b, h, i, j);
    const float ds = p * (dpd * ks - a.delta[row * a.sq + i]);
    const float pd = p * ks;
#pragma unroll
    for (int e = 0; e < HD; ++e) {
      dv[e] = fmaf(pd, gr[e], dv[e]);
      dk[e] = fmaf(ds, qr[e], dk[e]);
    }
  }
  float* ok = a.dk + (static_cast<std::int64_t>(b) * a.sk + j) * a.lddk + h * HD;
  float* ov = a.dv + (static_cast<std::int64_t>(b) * a.sk + j) * a.lddv + h * HD;
#pragma unroll
  for (int e = 0; e < HD; ++e) {
    ok[e] = dk[e] * scale;
    ov[e] = dv[e];
  }
}

template <int HD>
void launch(const attention_backward_args& a, cudaStream_t stream) {
  const float scale = 1.f / sqrtf(static_cast<float>(HD));
  const dim3 gq(static_cast<unsigned>((a.sq + block_rows - 1) / block_rows), static_cast<unsigned>(a.heads),
                static_cast<unsigned>(a.batch));
  const dim3 gk(static_cast<unsigned>((a.sk + block_rows - 1) / block_rows), static_cast<unsigned>(a.heads),
                static_cast<unsigned>(a.batch));
  delta_kernel<HD><<<gq, block_rows, 0, stream>>>(a);
  CUDABENCH_CHECK_LAUNCH();
  dq_kernel<HD><<<gq, block_rows, 0, stream>>>(a, scale);
  CUDABENCH_CHECK_LAUNCH();
  dkv_kernel<HD><<<gk, block_rows, 0, stream>>>(a, scale);
  CUDABENCH_CHECK_LAUNCH();
}

}  // namespace

void attention_backward(const attention_backward_args& a, cudaStream_t stream) {
  if (a.batch <= 0 || a.heads <= 0 || a.sq <= 0 || a.sk <= 0)
    throw std::invalid_argument("attention_backward: empty shape");
  if (a.batch > 65535 || a.heads > 65535) throw std::invalid_argument("attention_backward: batch/heads too large");
  switch (a.head_dim) {
    case 16: return launch<16>(a, stream);
    case 32: return launch<32>(a, stream);
    case 64: return launch<64>(a, stream);
    default: throw std::invalid_argument("attention_backward: head_dim must be 16, 32 or 64");
  }
}

}  // namespace cudabench::kernels::transformer_memory
