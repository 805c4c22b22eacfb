// Host versions of the kernels transformer_memory's train-mode forward and backward call (fp32
// only), written from each header's stated semantics, so the emulated test can run the model's
// host code (model_train.cpp, model_backward.cpp: GEMM shapes, buffer offsets, saved-tensor
// indices) against the CPU double reference without a GPU. They are not the CUDA kernels: those
// are tested on a GPU (tests/gpu/test_transformer_backward.cpp).
#include <cmath>
#include <stdexcept>
#include <vector>

#include "kernels/common/random_fill.cuh"
#include "kernels/train_step/cast.cuh"
#include "kernels/transformer_memory/attention.cuh"
#include "kernels/transformer_memory/attention_backward.cuh"
#include "kernels/transformer_memory/backward_ops.cuh"
#include "kernels/transformer_memory/dropout_rng.hpp"
#include "kernels/transformer_memory/layernorm.cuh"
#include "kernels/transformer_memory/train_ops.cuh"
#include "workloads/transformer_memory/attention_tuner.hpp"

namespace cudabench {
namespace kernels {
void fill_uniform(float* p, std::size_t n, std::uint64_t seed, float lo, float hi, cudaStream_t) {
  for (std::size_t i = 0; i < n; ++i) p[i] = uniform_at(seed, i, lo, hi);
}
void fill_uniform(__half*, std::size_t, std::uint64_t, float, float, cudaStream_t) { throw std::logic_error("fp16"); }
namespace train_step {
void cast_from_float(void*, const float*, std::size_t, dtype, cudaStream_t) { throw std::logic_error("cast"); }
}  // namespace train_step
namespace transformer_memory {
const char* attention_variant_name(attention_variant) { return "cuda-core(cpu)"; }
bool attention_head_dim_supported(int hd) { return hd == 16 || hd == 32 || hd == 64; }
void attention_forward(const attention_args& a, cudaStream_t) {
  const int HD = a.head_dim;
  const float scale = 1.f / std::sqrt(static_cast<float>(HD));
  const float* Q = static_cast<const float*>(a.q);
  const float* K = static_cast<const float*>(a.k);
  const float* V = static_cast<const float*>(a.v);
  float* O = static_cast<float*>(a.o);
  std::vector<float> s(a.sk);
  for (int b = 0; b < a.batch; ++b)
    for (int h = 0; h < a.heads; ++h)
      for (int i = 0; i < a.sq; ++i) {
        const float* q = Q + (std::int64_t(b) * a.sq + i) * a.ldq + h * HD;
        float mx = -INFINITY;
        for (int j = 0; j < a.sk; ++j) {
          const float* k = K + (std::int64_t(b) * a.sk + j) * a.ldk + h * HD;
          float acc = 0;
          for (int e = 0; e < HD; ++e) acc += q[e] * k[e];
          s[j] = acc * scale;
          mx = std::max(mx, s[j]);
        }
        float l = 0;
        for (int j = 0; j < a.sk; ++j) l += (s[j] = std::exp(s[j] - mx));
        float* o = O + (std::int64_t(b) * a.sq + i) * a.ldo + h * HD;
        for (int e = 0; e < HD; ++e) o[e] = 0;
        for (int j = 0; j < a.sk; ++j) {
          float p = s[j] / l;
          if (a.dropout_threshold) {
            const std::uint64_t idx = ((std::uint64_t(b) * a.heads + h) * a.sq + i) * a.sk + j;
            p = transformer::dropout_keep(a.dropout_seed, idx, a.dropout_threshold) ? p * a.dropout_scale : 0.f;
          }
          const float* v = V + (std::int64_t(b) * a.sk + j) * a.ldv + h * HD;
          for (int e = 0; e < HD; ++e) o[e] += p * v[e];
        }
        if (a.lse) a.lse[(std::int64_t(b) * a.heads + h) * a.lse_stride + i] = mx + std::log(l);
      }
}
void layernorm_inplace(void*, const void*, const void*, std::int64_t, int, float, dtype, cudaStream_t) {
  throw std::logic_error("inf");
}
static float drop(float y, std::int64_t i, const dropout_params& d) {
  if (!d.mask) return y;
  const bool keep = transformer::dropout_keep(d.seed, d.index_offset + std::uint64_t(i), d.threshold);
  d.mask[i] = keep;
  return keep ? y * d.scale : 0.f;
}
void dropout(const void* y, void* out, std::int64_t n, const dropout_params& d, dtype, cudaStream_t) {
  for (std::int64_t i = 0; i < n; ++i) static_cast<float*>(out)[i] = drop(static_cast<const float*>(y)[i], i, d);
}
void dropout_add(const void* x, const void* y, void* sum, std::int64_t n, const dropout_params& d, dtype,
                 cudaStream_t) {
  for (std::int64_t i = 0; i < n; ++i)
    static_cast<float*>(sum)[i] = static_cast<const float*>(x)[i] + drop(static_cast<const float*>(y)[i], i, d);
}
void layernorm_train(const void* in, void* out, const void* gamma, const void* beta, float* mean, float* rstd,
                     std::int64_t rows, int cols, float eps, dtype, cudaStream_t) {
  const float* x = static_cast<const float*>(in);
  float* y = static_cast<float*>(out);
  const float* g = static_cast<const float*>(gamma);
  const float* bb = static_cast<const float*>(beta);
  for (std::int64_t r = 0; r < rows; ++r) {
    float m = 0;
    for (int c = 0; c < cols; ++c) m += x[r * cols + c];
    m /= cols;
    float v = 0;
    for (int c = 0; c < cols; ++c) v += (x[r * cols + c] - m) * (x[r * cols + c] - m);
    const float rs = 1.f / std::sqrt(v / cols + eps);
    for (int c = 0; c < cols; ++c) y[r * cols + c] = (x[r * cols + c] - m) * rs * g[c] + bb[c];
    mean[r] = m;
    rstd[r] = rs;
  }
}
void layernorm_backward(const float* in, const float* dy, const float* gamma, const float* mean, const float* rstd,
                        float* dx, float* dgamma, float* dbeta, std::int64_t rows, int cols, cudaStream_t) {
  for (std::int64_t r = 0; r < rows; ++r) {
    float s1 = 0, s2 = 0;
    for (int c = 0; c < cols; ++c) {
      const float xh = (in[r * cols + c] - mean[r]) * rstd[r], dyg = dy[r * cols + c] * gamma[c];
      s1 += dyg;
      s2 += dyg * xh;
      dgamma[c] += dy[r * cols + c] * xh;
      dbeta[c] += dy[r * cols + c];
    }
    const float m1 = s1 / cols, m2 = s2 / cols;
    for (int c = 0; c < cols; ++c) {
      const float xh = (in[r * cols + c] - mean[r]) * rstd[r];
      dx[r * cols + c] = rstd[r] * (dy[r * cols + c] * gamma[c] - m1 - xh * m2);
    }
  }
}
void dropout_backward(const float* dy, const std::uint8_t* mask, float scale, float* dx, std::int64_t n, cudaStream_t) {
  for (std::int64_t i = 0; i < n; ++i) dx[i] = !mask ? dy[i] : (mask[i] ? dy[i] * scale : 0.f);
}
void relu_dropout_backward(float* dh, const float* relu_out, const std::uint8_t* mask, float scale, std::int64_t n,
                           cudaStream_t) {
  for (std::int64_t i = 0; i < n; ++i) {
    const float g = mask ? (mask[i] ? dh[i] * scale : 0.f) : dh[i];
    dh[i] = relu_out[i] > 0 ? g : 0.f;
  }
}
void column_sums(const float* dy, std::int64_t rows, int cols, float* out, cudaStream_t) {
  for (std::int64_t r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) out[c] += dy[r * cols + c];
}
void attention_backward(const attention_backward_args& a, cudaStream_t) {
  const int HD = a.head_dim;
  const float scale = 1.f / std::sqrt(float(HD));
  for (int b = 0; b < a.batch; ++b)
    for (int h = 0; h < a.heads; ++h) {
      const std::int64_t row = std::int64_t(b) * a.heads + h;
      for (int i = 0; i < a.sq; ++i) {
        const float* o = a.o + (std::int64_t(b) * a.sq + i) * a.ldo + h * HD;
        const float* g = a.dout + (std::int64_t(b) * a.sq + i) * a.lddo + h * HD;
        float s = 0;
        for (int e = 0; e < HD; ++e) s += o[e] * g[e];
        a.delta[row * a.sq + i] = s;
      }
      for (int i = 0; i < a.sq; ++i)
        for (int e = 0; e < HD; ++e) a.dq[(std::int64_t(b) * a.sq + i) * a.lddq + h * HD + e] = 0;
      for (int j = 0; j < a.sk; ++j)
        for (int e = 0; e < HD; ++e) {
          a.dk[(std::int64_t(b) * a.sk + j) * a.lddk + h * HD + e] = 0;
          a.dv[(std::int64_t(b) * a.sk + j) * a.lddv + h * HD + e] = 0;
        }
      for (int i = 0; i < a.sq; ++i)
        for (int j = 0; j < a.sk; ++j) {
          const float* q = a.q + (std::int64_t(b) * a.sq + i) * a.ldq + h * HD;
          const float* g = a.dout + (std::int64_t(b) * a.sq + i) * a.lddo + h * HD;
          const float* k = a.k + (std::int64_t(b) * a.sk + j) * a.ldk + h * HD;
          const float* v = a.v + (std::int64_t(b) * a.sk + j) * a.ldv + h * HD;
          float s = 0, dpd = 0;
          for (int e = 0; e < HD; ++e) {
            s += q[e] * k[e];
            dpd += g[e] * v[e];
          }
          const float p = std::exp(s * scale - a.lse[row * a.lse_stride + i]);
          float ks = 1.f;
          if (a.dropout_threshold) {
            const std::uint64_t idx = ((std::uint64_t(b) * a.heads + h) * a.sq + i) * a.sk + j;
            ks = transformer::dropout_keep(a.dropout_seed, idx, a.dropout_threshold) ? a.dropout_scale : 0.f;
          }
          const float ds = p * (dpd * ks - a.delta[row * a.sq + i]);
          for (int e = 0; e < HD; ++e) {
            a.dq[(std::int64_t(b) * a.sq + i) * a.lddq + h * HD + e] += ds * k[e] * scale;
            a.dk[(std::int64_t(b) * a.sk + j) * a.lddk + h * HD + e] += ds * q[e] * scale;
            a.dv[(std::int64_t(b) * a.sk + j) * a.lddv + h * HD + e] += p * ks * g[e];
          }
        }
    }
}
}  // namespace transformer_memory
}  // namespace kernels
namespace transformer {
attention_choice tune_attention(const std::vector<attention_workload>&, cudaStream_t) {
  throw std::logic_error("tuner");
}
}  // namespace transformer
}  // namespace cudabench
