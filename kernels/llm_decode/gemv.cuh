// Batch-1 GEMV for decode: y[n] = W[n, k] · x[k], W row-major fp16/bf16, fp32 accumulation.
//
// Decode at batch 1 is weight streaming: every weight is read once per token and used for one
// multiply-add, so the bound is bytes(W) / DRAM bandwidth (Llama-2-7B: 13.2 GB per token,
// ~3.1 ms at the H200's ~4.3 TB/s copy bandwidth). The kernel is shaped for that:
//  - one warp per output row, each lane streaming 16-byte packs (8 elements) of the row with
//    cache-streaming loads, 8 packs per lane in flight (4 KB per warp, tens of KB per SM), the first
//    batch issued before the block stages x, so the weight stream starts at once;
//  - x staged once per block in shared memory (8 rows share it), fp32 accumulation, a warp-shuffle
//    reduction at the end;
//  - cheap neighbours fused in: an RMSNorm prologue (the block normalises the residual stream
//    itself instead of a separate kernel writing x; the norm weight is copied to shared memory
//    with cp.async before the wait for the previous kernel, so after it the prologue waits on one
//    read, x's, as an unnormalised GEMV does: that took decode from 200.5 to 205.1 tok/s on an
//    H100, docs/llm-performance.md), and epilogues for the residual add (o_proj,
//    down_proj write h += W·x) and SwiGLU (one warp computes gate row i and up row i, and writes
//    silu(gate)·up), so a decoder layer is five GEMV-class launches plus attention.
// Rows whose length is not a multiple of 8 (intermediate size 700, say) fall back to 8-, 4- or
// 2-byte packs, so any shape runs; only the 16-byte path is tuned.
//
// Variants (16-byte path only; narrower packs always run variant 0). Which one streams a given
// matrix fastest depends on its shape (wave quantisation of ceil(n / (W R)) blocks over the SMs,
// how much of a row is in flight before the prologue), so the engine times them at setup on the
// real weights and keeps the fastest per call site. The dot products are summed in the same order
// by every variant; only the RMSNorm prologue's sum of squares is reduced over a different number
// of threads, so with that prologue results may differ in the last bit between variants:
//   0: 8 warps per block, 1 row per warp,  8 packs per lane in flight  (the original shape)
//   1: 4 warps per block, 1 row per warp,  8 packs in flight  (twice the blocks: smaller tail)
//   2: 8 warps per block, 1 row per warp, 16 packs in flight  (a whole 4096-row in flight per warp)
//   3: 4 warps per block, 1 row per warp, 16 packs in flight
//   4: 8 warps per block, 2 rows per warp, 8 packs per row in flight (SwiGLU: 4, over 4 weight
//      rows): half the blocks, so the per-block prologue (staging x, the RMSNorm) is paid once per
//      16 rows, and each warp has twice a plain row's bytes in flight, as SwiGLU's warps do
//   5: 4 warps per block, 2 rows per warp, as 4
//   6: as 0, and each warp's second batch (8 more packs per lane) is copied to shared memory
//      with cp.async before the wait, so a whole 4096-element row is in flight across it without
//      holding more registers; the window it fills is the previous kernel's tail (the attention's
//      before o_proj: 0.22 ms per step on an H100 in which the bus mostly idles). Not tuned:
//      the tuner times each site after itself, where that window does not exist, so it is
//      chosen only by CUDABENCH_LLM_GEMV (o:6) or --tuning-from, and measured in the real step.
//      There it lost: Llama-2-7B decode 268.6 -> 262.4 tok/s (-2.3%) with o_proj forced to it on
//      an H200 (2026-12-06, docs/llm-performance.md), so no site uses it unless forced
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace cudabench::kernels::llm_decode {

enum class gemv_input {
  vector,   // x as given
  rmsnorm,  // x := rmsnorm(x) * norm_weight (HF LlamaRMSNorm: fp32 statistics, rounded to T, then * w)
};

enum class gemv_output {
  store,         // y[i] = T(W·x)
  store_f32,     // y[i] = W·x as fp32 (logits)
  add_residual,  // y[i] = T(y[i] + T(W·x)): y is the residual stream, updated in place
  swiglu,        // W has 2n rows (gate rows, then up rows): y[i] = T(silu(T(g_i)) · T(u_i))
};

template <class T>
struct gemv_args {
  const T* w = nullptr;            // [n][k] (swiglu: [2n][k]); 16-byte aligned
  int n = 0;                       // outputs
  int k = 0;                       // row length
  const T* x = nullptr;            // [k]; aligned like w
  const T* norm_weight = nullptr;  // [k], rmsnorm input only
  float eps = 0.0f;
  void* y = nullptr;  // [n] of T, or float for store_f32
  int variant = 0;    // launch shape, 0 .. kGemvVariants - 1 (see above)
};

constexpr int kGemvVariants = 7;
constexpr int kGemvTunedVariants = 6;        // the tuner's candidates: 0 .. 5 (6 only when forced, above)
const char* gemv_variant_name(int variant);  // "8w/u8", ..., "8w/u8/p1"

template <class T>
void gemv(const gemv_args<T>& args, gemv_input in, gemv_output out, cudaStream_t stream);

}  // namespace cudabench::kernels::llm_decode
