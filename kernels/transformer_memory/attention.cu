// See attention.cuh. One thread per query row, 128 queries per block, K/V tiles of 32 keys.
#include "kernels/transformer_memory/attention.cuh"

#include <stdexcept>

#include "cudabench/gpu/cuda_check.hpp"
#include "kernels/common/convert.cuh"
#include "kernels/transformer_memory/attention_flash_tf32x3.cuh"
#include "kernels/transformer_memory/attention_tf32x3.cuh"
#include "kernels/transformer_memory/dropout_rng.hpp"

namespace cudabench::kernels::transformer_memory {
namespace {

constexpr int block_queries = 128;
constexpr int tile_keys = 32;

// Train mode's extras (attention_args): dropout on the probabilities and the logsumexp.
struct train_extras {
  std::uint32_t threshold = 0;
  float scale = 1.f;
  std::uint64_t seed = 0;
  float* lse = nullptr;
  std::int64_t lse_stride = 0;
};

// grid (ceil(sq / 128), heads, batch), block 128. Train: the train_extras apply (a separate
// instantiation, so the inference kernel does not carry the hash in its inner loop).
template <class T, int HD, bool Train>
__global__ void __launch_bounds__(block_queries)
    attention_kernel(const T* __restrict__ q, const T* __restrict__ k, const T* __restrict__ v, T* __restrict__ o,
                     std::int64_t ldq, std::int64_t ldk, std::int64_t ldv, std::int64_t ldo, int sq, int sk,
                     float scale_log2, train_extras tx) {
  __shared__ __align__(16) float ks[tile_keys][HD];
  __shared__ __align__(16) float vs[tile_keys][HD];
  const int b = blockIdx.z, h = blockIdx.y;
  const int qi = blockIdx.x * block_queries + threadIdx.x;
  const bool active = qi < sq;

  // Scores live in the log2 domain: q is pre-scaled by log2(e)/sqrt(HD) so exp2 gives e^(s/sqrt(HD)).
  float qr[HD], acc[HD];
  const T* qrow = q + (static_cast<std::int64_t>(b) * sq + (active ? qi : 0)) * ldq + h * HD;
#pragma unroll
  for (int d = 0; d < HD; ++d) {
    qr[d] = active ? to_float(qrow[d]) * scale_log2 : 0.f;
    acc[d] = 0.f;
  }
  float m = -INFINITY, l = 0.f;

  const T* kbase = k + static_cast<std::int64_t>(b) * sk * ldk + h * HD;
  const T* vbase = v + static_cast<std::int64_t>(b) * sk * ldv + h * HD;
  for (int k0 = 0; k0 < sk; k0 += tile_keys) {
    __syncthreads();  // the previous tile has been consumed by every thread
    for (int idx = threadIdx.x; idx < tile_keys * HD; idx += block_queries) {
      const int j = idx / HD, d = idx % HD;
      const int kj = k0 + j;
      float kv = 0.f, vv = 0.f;
      if (kj < sk) {
        kv = to_float(kbase[static_cast<std::int64_t>(kj) * ldk + d]);
        vv = to_float(vbase[static_cast<std::int64_t>(kj) * ldv + d]);
      }
      ks[j][d] = kv;
      vs[j][d] = vv;
    }
    __syncthreads();

    float s[tile_keys];
#pragma unroll
    for (int j = 0; j < tile_keys; ++j) s[j] = 0.f;
#pragma unroll
    for (int d = 0; d < HD; d += 4) {
#pragma unroll
      for (int j = 0; j < tile_keys; ++j) {
        const float4 k4 = *reinterpret_cast<const float4*>(&ks[j][d]);
        s[j] = fmaf(qr[d], k4.x, s[j]);
        s[j] = fmaf(qr[d + 1], k4.y, s[j]);
        s[j] = fmaf(qr[d + 2], k4.z, s[j]);
        s[j] = fmaf(qr[d + 3], k4.w, s[j]);
      }
    }
    const int nvalid = min(tile_keys, sk - k0);  // >= 1: the tile starts inside the sequence
    float mt = m;
#pragma unroll
    for (int j = 0; j < tile_keys; ++j)
      if (j < nvalid) mt = fmaxf(mt, s[j]);
    const float corr = exp2f(m - mt);  // 0 on the first tile (m = -inf, mt finite)
    l *= corr;
#pragma unroll
    for (int d = 0; d < HD; ++d) acc[d] *= corr;
#pragma unroll
    for (int j = 0; j < tile_keys; ++j) {
      float p = j < nvalid ? exp2f(s[j] - mt) : 0.f;
      l += p;  // the normaliser is the softmax's, before dropout
      if constexpr (Train) {
        if (tx.threshold != 0) {
          const std::uint64_t idx =
              ((static_cast<std::uint64_t>(b) * gridDim.y + h) * sq + (active ? qi : 0)) * sk + (k0 + j);
          p = transformer::dropout_keep(tx.seed, idx, tx.threshold) ? p * tx.scale : 0.f;
        }
      }
#pragma unroll
      for (int d = 0; d < HD; d += 4) {
        const float4 v4 = *reinterpret_cast<const float4*>(&vs[j][d]);
        acc[d] = fmaf(p, v4.x, acc[d]);
        acc[d + 1] = fmaf(p, v4.y, acc[d + 1]);
        acc[d + 2] = fmaf(p, v4.z, acc[d + 2]);
        acc[d + 3] = fmaf(p, v4.w, acc[d + 3]);
      }
    }
    m = mt;
  }
  if (!active) return;
  if constexpr (Train) {
    if (tx.lse)
      tx.lse[(static_cast<std::int64_t>(b) * gridDim.y + h) * tx.lse_stride + qi] =
          (m + log2f(l)) * 0.6931471805599453f;
  }
  const float inv_l = 1.f / l;
  T* orow = o + (static_cast<std::int64_t>(b) * sq + qi) * ldo + h * HD;
#pragma unroll
  for (int d = 0; d < HD; ++d) orow[d] = from_float<T>(acc[d] * inv_l);
}

template <class T, int HD>
void launch(const attention_args& a, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>((a.sq + block_queries - 1) / block_queries), static_cast<unsigned>(a.heads),
                  static_cast<unsigned>(a.batch));
  const float scale_log2 = 1.4426950408889634f / sqrtf(static_cast<float>(HD));
  const train_extras tx{a.dropout_threshold, a.dropout_scale, a.dropout_seed, a.lse, a.lse_stride};
  if (a.dropout_threshold != 0 || a.lse)
    attention_kernel<T, HD, true><<<grid, block_queries, 0, stream>>>(
        static_cast<const T*>(a.q), static_cast<const T*>(a.k), static_cast<const T*>(a.v), static_cast<T*>(a.o), a.ldq,
        a.ldk, a.ldv, a.ldo, a.sq, a.sk, scale_log2, tx);
  else
    attention_kernel<T, HD, false><<<grid, block_queries, 0, stream>>>(
        static_cast<const T*>(a.q), static_cast<const T*>(a.k), static_cast<const T*>(a.v), static_cast<T*>(a.o), a.ldq,
        a.ldk, a.ldv, a.ldo, a.sq, a.sk, scale_log2, tx);
  CUDABENCH_CHECK_LAUNCH();
}

template <class T>
void dispatch(const attention_args& a, cudaStream_t stream) {
  if (a.batch <= 0 || a.heads <= 0 || a.sq <= 0 || a.sk <= 0) throw std::invalid_argument("attention: empty shape");
  if (a.batch > 65535 || a.heads > 65535) throw std::invalid_argument("attention: batch/heads exceed grid limits");
  switch (a.head_dim) {
    case 16: return launch<T, 16>(a, stream);
    case 32: return launch<T, 32>(a, stream);
    case 64: return launch<T, 64>(a, stream);
    default: throw std::invalid_argument("attention: head_dim must be 16, 32 or 64");
  }
}

}  // namespace

const char* attention_variant_name(attention_variant v) {
  switch (v) {
    case attention_variant::cuda_core: return "cuda-core";
    case attention_variant::tf32x3_two_pass: return "3xTF32 two-pass";
    case attention_variant::tf32x3_flash: return "3xTF32 flash";
  }
  return "?";
}

bool attention_head_dim_supported(int head_dim) { return head_dim == 16 || head_dim == 32 || head_dim == 64; }
void attention_forward(const attention_args& a, cudaStream_t stream) {
  const bool train = a.dropout_threshold != 0 || a.lse;  // only the CUDA-core kernel has the train extras
  if (!train && a.type != dtype::fp16 && a.head_dim == 64) {
    if (a.variant == attention_variant::tf32x3_two_pass) return attention_forward_tf32x3(a, stream);
    if (a.variant == attention_variant::tf32x3_flash) return attention_forward_flash_tf32x3(a, stream);
  }
  if (a.type == dtype::fp16) dispatch<__half>(a, stream);
  else dispatch<float>(a, stream);
}

}  // namespace cudabench::kernels::transformer_memory
