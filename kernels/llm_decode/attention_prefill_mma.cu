// Causal prefill attention on tensor cores (see attention_prefill.cuh for what it computes): the
// flash-attention-2 schedule with mma.sync m16n8k16 (mma_sm80.cuh), fp32 scores and softmax state.
// Layout: block = (query head, tile of 64 queries), 4 warps x 16 query rows; the grid's y index
// runs from the last tile (the longest causal rows) to the first, so the heaviest blocks start
// first and the short ones fill the tail. Shared memory holds Q [64][hd] and two stages of
// K and V [64][hd] (rows padded by 16 bytes so ldmatrix's eight row reads hit distinct banks),
// filled by cp.async one key tile ahead of the one being used.
// Per key tile, each warp: S = Q K^T (fp32 accumulators, 16 x 64), the causal mask on the diagonal
// tile, the online softmax in base 2 (running max and sum per row; the sum from the fp32
// probabilities), then the probabilities rounded to T as the A operand of O += P V, as
// flash-attention and PyTorch's fused kernels round them. The output is O / sum, rounded once.
// Floor at Llama-2-7B's 2048-token prompt: 4 x 2048^2 / 2 x 128 x 32 heads = 1.1 TFLOP per 32 layers,
// ~2 ms at the power-capped dense fp16 rate; K/V come from L2 (0.5 MB per head).
#include "kernels/llm_decode/attention_prefill_mma.cuh"

#include <cmath>
#include <cstdint>

#include "cudabench/gpu/cuda_check.hpp"
#include "kernels/common/shared_memory.cuh"
#include "kernels/llm_decode/device_utils.cuh"
#include "kernels/llm_decode/mma_sm80.cuh"

namespace cudabench::kernels::llm_decode {
namespace {

constexpr int kThreads = 128;  // 4 warps
constexpr int kBlockM = 64;    // queries per block (16 per warp)
constexpr int kBlockN = 64;    // keys per tile; == kBlockM, so the diagonal tile is tile qt
constexpr int kPad = 8;        // elements of padding per shared row (16 bytes)

template <int HD>
constexpr std::size_t smem_bytes() {
  return static_cast<std::size_t>(kBlockM + 4 * kBlockN) * (HD + kPad) * 2;  // Q, 2 x K, 2 x V
}

template <class T, int HD>
__global__ void __launch_bounds__(kThreads)
    attn_prefill_mma_kernel(const T* qkv, const T* k_cache, const T* v_cache, attn_prefill_shape s, T* out) {
  constexpr int kPitch = HD + kPad;
  constexpr int kRowChunks = HD / 8;  // 16-byte pieces per row
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* sq = reinterpret_cast<T*>(smem_raw);  // [kBlockM][kPitch]
  T* sk = sq + kBlockM * kPitch;           // [2][kBlockN][kPitch]
  T* sv = sk + 2 * kBlockN * kPitch;       // [2][kBlockN][kPitch]

  const int head = blockIdx.x, qt = gridDim.y - 1 - blockIdx.y, q0 = qt * kBlockM;
  const int kvh = head / (s.num_heads / s.num_kv_heads);
  const int tid = threadIdx.x, lane = tid % 32, warp = tid / 32;
  const T* kbase = k_cache + static_cast<std::size_t>(kvh) * s.max_len * HD;
  const T* vbase = v_cache + static_cast<std::size_t>(kvh) * s.max_len * HD;

  for (int c = tid; c < kBlockM * kRowChunks; c += kThreads) {
    const int r = c / kRowChunks, piece = c % kRowChunks, t = q0 + r;
    const bool in = t < s.rows;
    const T* src = qkv + static_cast<std::size_t>(in ? t : 0) * s.qkv_stride + head * HD + piece * 8;
    cp_async_16(sq + r * kPitch + piece * 8, src, in);
  }
  const auto load_kv = [&](int tile, int stage) {
    for (int c = tid; c < kBlockN * kRowChunks; c += kThreads) {
      const int r = c / kRowChunks, piece = c % kRowChunks, key = tile * kBlockN + r;
      const bool in = key < s.rows;  // rows past the prompt: zeros (masked anyway, never NaN)
      const std::size_t at = static_cast<std::size_t>(in ? key : 0) * HD + piece * 8;
      cp_async_16(sk + (stage * kBlockN + r) * kPitch + piece * 8, kbase + at, in);
      cp_async_16(sv + (stage * kBlockN + r) * kPitch + piece * 8, vbase + at, in);
    }
  };
  load_kv(0, 0);
  cp_async_commit();  // group: Q and key tile 0

  const float scale_log2 = s.scale * 1.4426950408889634f;             // softmax in base 2: exp(x) = 2^(x log2 e)
  const int row_lo = q0 + warp * 16 + lane / 4, row_hi = row_lo + 8;  // this thread's two query rows
  std::uint32_t qf[HD / 16][4];
  float o[HD / 8][4];
#pragma unroll
  for (int dt = 0; dt < HD / 8; ++dt)
#pragma unroll
    for (int e = 0; e < 4; ++e) o[dt][e] = 0.0f;
  float m_run[2] = {-INFINITY, -INFINITY}, l_run[2] = {0.0f, 0.0f};

  for (int j = 0; j <= qt; ++j) {
    const int stage = j & 1;
    if (j < qt) load_kv(j + 1, stage ^ 1);
    cp_async_commit();   // (possibly empty) group for tile j + 1
    cp_async_wait<1>();  // tile j (and Q) landed
    __syncthreads();
    if (j == 0) {
#pragma unroll
      for (int ks = 0; ks < HD / 16; ++ks)
        ldmatrix_x4(qf[ks], sq + (warp * 16 + lane % 16) * kPitch + ks * 16 + (lane / 16) * 8);
    }

    // S = Q K^T for the warp's 16 rows x 64 keys.
    const T* kt = sk + stage * kBlockN * kPitch;
    float sc[kBlockN / 8][4];
#pragma unroll
    for (int nt = 0; nt < kBlockN / 8; ++nt) {
#pragma unroll
      for (int e = 0; e < 4; ++e) sc[nt][e] = 0.0f;
#pragma unroll
      for (int ks = 0; ks < HD / 16; ks += 2) {
        std::uint32_t b[4];
        ldmatrix_x4(b, kt + (nt * 8 + lane % 8) * kPitch + ks * 16 + (lane / 8) * 8);
        mma_16816<T>(sc[nt], qf[ks], b[0], b[1]);
        mma_16816<T>(sc[nt], qf[ks + 1], b[2], b[3]);
      }
    }

    // Causal mask (diagonal tile only) and the online softmax, in units of log2.
    float mx[2] = {-INFINITY, -INFINITY};
#pragma unroll
    for (int nt = 0; nt < kBlockN / 8; ++nt)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int key = j * kBlockN + nt * 8 + 2 * (lane % 4) + (e & 1);
        float v = sc[nt][e] * scale_log2;
        if (j == qt && key > (e < 2 ? row_lo : row_hi)) v = -INFINITY;
        sc[nt][e] = v;
        mx[e / 2] = fmaxf(mx[e / 2], v);
      }
    float alpha[2];
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      // A row's 64 columns live in the 4 lanes of its quad.
      mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 1));
      mx[r] = fmaxf(mx[r], __shfl_xor_sync(0xffffffffu, mx[r], 2));
      const float m_new = fmaxf(m_run[r], mx[r]);  // finite: key j * 64 <= every row of this tile
      alpha[r] = exp2f(m_run[r] - m_new);          // 0 on the first tile
      m_run[r] = m_new;
    }
    float rsum[2] = {0.0f, 0.0f};
#pragma unroll
    for (int nt = 0; nt < kBlockN / 8; ++nt)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const float p = exp2f(sc[nt][e] - m_run[e / 2]);
        sc[nt][e] = p;
        rsum[e / 2] += p;
      }
#pragma unroll
    for (int r = 0; r < 2; ++r) l_run[r] = l_run[r] * alpha[r] + rsum[r];  // this lane's columns only
#pragma unroll
    for (int dt = 0; dt < HD / 8; ++dt) {
      o[dt][0] *= alpha[0];
      o[dt][1] *= alpha[0];
      o[dt][2] *= alpha[1];
      o[dt][3] *= alpha[1];
    }

    // O += P V, 16 keys per step.
    const T* vt = sv + stage * kBlockN * kPitch;
#pragma unroll
    for (int kk = 0; kk < kBlockN / 16; ++kk) {
      const std::uint32_t a[4] = {pack_pair<T>(sc[2 * kk][0], sc[2 * kk][1]),
                                  pack_pair<T>(sc[2 * kk][2], sc[2 * kk][3]),
                                  pack_pair<T>(sc[2 * kk + 1][0], sc[2 * kk + 1][1]),
                                  pack_pair<T>(sc[2 * kk + 1][2], sc[2 * kk + 1][3])};
#pragma unroll
      for (int dt = 0; dt < HD / 8; dt += 2) {
        std::uint32_t b[4];
        ldmatrix_x4_trans(b, vt + (kk * 16 + lane % 8 + ((lane / 8) % 2) * 8) * kPitch + dt * 8 + (lane / 16) * 8);
        mma_16816<T>(o[dt], a, b[0], b[1]);
        mma_16816<T>(o[dt + 1], a, b[2], b[3]);
      }
    }
    __syncthreads();  // this stage is refilled by the next iteration's prefetch
  }

#pragma unroll
  for (int r = 0; r < 2; ++r) {
    l_run[r] += __shfl_xor_sync(0xffffffffu, l_run[r], 1);
    l_run[r] += __shfl_xor_sync(0xffffffffu, l_run[r], 2);
  }
  const float inv_lo = 1.0f / l_run[0], inv_hi = 1.0f / l_run[1];
  const std::size_t row_elems = static_cast<std::size_t>(s.num_heads) * HD;
#pragma unroll
  for (int dt = 0; dt < HD / 8; ++dt) {
    const int col = head * HD + dt * 8 + 2 * (lane % 4);
    if (row_lo < s.rows)
      *reinterpret_cast<std::uint32_t*>(out + row_lo * row_elems + col) =
          pack_pair<T>(o[dt][0] * inv_lo, o[dt][1] * inv_lo);
    if (row_hi < s.rows)
      *reinterpret_cast<std::uint32_t*>(out + row_hi * row_elems + col) =
          pack_pair<T>(o[dt][2] * inv_hi, o[dt][3] * inv_hi);
  }
}

template <class T, int HD>
void launch_mma(const T* qkv, const T* k_cache, const T* v_cache, const attn_prefill_shape& s, T* out,
                cudaStream_t stream) {
  constexpr std::size_t smem = smem_bytes<HD>();
  opt_in_shared_memory(attn_prefill_mma_kernel<T, HD>, smem);
  const dim3 grid(s.num_heads, (s.rows + kBlockM - 1) / kBlockM);
  attn_prefill_mma_kernel<T, HD><<<grid, kThreads, smem, stream>>>(qkv, k_cache, v_cache, s, out);
  CUDABENCH_CHECK_LAUNCH();
}

}  // namespace

bool attention_prefill_mma_supports(const attn_prefill_shape& s) {
  const bool dim = s.head_dim == 32 || s.head_dim == 64 || s.head_dim == 96 || s.head_dim == 128;
  return dim && s.qkv_stride % 8 == 0;  // 16-byte rows for cp.async
}

template <class T>
bool attention_prefill_mma(const T* qkv, const T* k_cache, const T* v_cache, const attn_prefill_shape& s, T* out,
                           cudaStream_t stream) {
  if (!attention_prefill_mma_supports(s) || !aligned_to(qkv, 16) || !aligned_to(k_cache, 16) ||
      !aligned_to(v_cache, 16) || !aligned_to(out, 16))
    return false;
  switch (s.head_dim) {
    case 32: launch_mma<T, 32>(qkv, k_cache, v_cache, s, out, stream); break;
    case 64: launch_mma<T, 64>(qkv, k_cache, v_cache, s, out, stream); break;
    case 96: launch_mma<T, 96>(qkv, k_cache, v_cache, s, out, stream); break;
    default: launch_mma<T, 128>(qkv, k_cache, v_cache, s, out, stream); break;
  }
  return true;
}

template bool attention_prefill_mma<__half>(const __half*, const __half*, const __half*, const attn_prefill_shape&,
                                            __half*, cudaStream_t);
template bool attention_prefill_mma<__nv_bfloat16>(const __nv_bfloat16*, const __nv_bfloat16*, const __nv_bfloat16*,
                                                   const attn_prefill_shape&, __nv_bfloat16*, cudaStream_t);

}  // namespace cudabench::kernels::llm_decode
