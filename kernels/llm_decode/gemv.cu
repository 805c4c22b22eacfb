// See gemv.cuh for what this computes and why it is shaped this way.
// Layout: block = W warps; warp w owns R consecutive output rows (block b's warps cover rows
// b*W*R .. b*W*R + W*R - 1); grid = ceil(n / (W*R)) blocks; dynamic shared memory holds x (k
// elements of T), with the RMSNorm prologue the norm weight behind it, and in variant 6 each
// warp's staged second batch behind those. Lane l of a warp reads packs l, l+32, l+64, ... of
// each of its rows, U packs per row in flight at a time. (W, U, R) is the variant (gemv.cuh);
// each lane sums a row's packs in the same order whatever W, U and R are, so the dot products
// are bit-identical across variants.
#include "kernels/llm_decode/gemv.cuh"

#include <cassert>
#include <cstdint>

#include "cudabench/gpu/cuda_check.hpp"
#include "kernels/common/reduce.cuh"
#include "kernels/common/shared_memory.cuh"
#include "kernels/llm_decode/device_utils.cuh"
#include "kernels/llm_decode/launch.cuh"

namespace cudabench::kernels::llm_decode {
namespace {

// Packs per weight row in flight: a SwiGLU warp with two outputs streams four weight rows, so it
// keeps half as many packs per row in flight (the same 64 registers of weights as one output's
// gate and up rows at U).
template <gemv_output Out, int kUnroll, int kOuts>
constexpr int unroll_for() {
  return Out == gemv_output::swiglu && kOuts > 1 ? kUnroll / kOuts : kUnroll;
}

template <class L>
__device__ __forceinline__ L load_stream(const L* p) {
  return __ldcs(p);
}

// Copy one pack global -> shared without holding a register until it lands (cp.async, 16-byte
// packs on sm_80+); other packs, and the CPU emulator, copy through a register. Completed by
// stage_wait(); a thread may then read the packs it staged itself.
template <class L>
__device__ __forceinline__ void stage_async(L* dst, const L* src) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (sizeof(L) == 16) {
    asm volatile(
        "cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(dst))),
        "l"(src));
    return;
  }
#endif
  *dst = *src;
}
__device__ __forceinline__ void stage_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

// Packs of one warp's second batch staged in shared memory before the wait (kPrefetch variants).
template <gemv_output Out, int kUnroll, int kOuts>
constexpr int prefetch_packs_per_warp() {
  return (Out == gemv_output::swiglu ? 2 * kOuts : kOuts) * unroll_for<Out, kUnroll, kOuts>() * 32;
}

template <class T, class L, bool Norm, gemv_output Out, int kWarps, int kUnrollArg, int kOuts, bool kPrefetch>
__global__ void __launch_bounds__(kWarps * 32) gemv_kernel(gemv_args<T> a) {
  constexpr int kThreads = kWarps * 32;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  __shared__ float scratch[32];
  T* xs = reinterpret_cast<T*>(smem_raw);
  // Weight rows per warp: its kOuts output rows, and for SwiGLU their up rows after them (weight
  // row j is output j % kOuts, gate for j < kOuts, up after).
  constexpr int kRows = Out == gemv_output::swiglu ? 2 * kOuts : kOuts;
  constexpr int kUnroll = unroll_for<Out, kUnrollArg, kOuts>();
  constexpr int kPerPack = static_cast<int>(sizeof(L) / sizeof(T));

  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int row0 = (blockIdx.x * kWarps + warp) * kOuts;  // the warp's first output row
  const bool active = row0 < a.n;
  bool live[kRows];                  // weight row j exists (the last warp may own fewer than kOuts rows)
  const int packs = a.k / kPerPack;  // per row; the launcher picked L so this is exact
  const L* wrow[kRows];
#pragma unroll
  for (int j = 0; j < kRows; ++j) {
    const int out_row = row0 + j % kOuts;
    live[j] = out_row < a.n;
    wrow[j] = reinterpret_cast<const L*>(
        a.w + (static_cast<std::size_t>(live[j] ? out_row : 0) + static_cast<std::size_t>(j / kOuts) * a.n) * a.k);
  }

  L w[kRows][kUnroll];
  auto load_batch = [&](int base) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int p = base + u * 32 + lane;
#pragma unroll
      for (int r = 0; r < kRows; ++r) w[r][u] = (live[r] && p < packs) ? load_stream(wrow[r] + p) : L{};
    }
  };
  load_batch(0);  // in flight while the previous kernel drains and the block stages x
  // kPrefetch: the second batch too, into shared memory (no registers held), so twice a warp's
  // bytes are in flight across the wait: the window where the previous kernel (the attention,
  // say) leaves the memory bus idle. Each lane stages the packs it will read itself.
  L* pre = reinterpret_cast<L*>(xs) + (Norm ? 2 : 1) * packs + warp * prefetch_packs_per_warp<Out, kUnrollArg, kOuts>();
  if constexpr (kPrefetch) {
    if (active)
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const int p = 32 * kUnroll + u * 32 + lane;
#pragma unroll
        for (int r = 0; r < kRows; ++r)
          if (live[r] && p < packs) stage_async(pre + (r * kUnroll + u) * 32 + lane, wrow[r] + p);
      }
  }
  // The norm weight is a weight too (no kernel writes it): staged before the wait, so after it
  // the prologue has one dependent read, x's, as the plain path has. Behind x in shared memory.
  L* nsv = reinterpret_cast<L*>(xs) + packs;
  if constexpr (Norm) {
    const L* nv = reinterpret_cast<const L*>(a.norm_weight);
    for (int i = threadIdx.x; i < packs; i += kThreads) stage_async(nsv + i, nv + i);
  }
  pdl_trigger();
  pdl_wait();  // x (and, for add_residual, y) come from earlier kernels

  if constexpr (Norm) {
    // Packed reads (2 per thread for k = 4096), x read once: it is kept in shared memory for
    // the second pass, and each thread reads back only the packs it wrote (x and the norm
    // weight), so no barrier is needed between the passes beyond block_sum's.
    const L* xv = reinterpret_cast<const L*>(a.x);
    L* xsv = reinterpret_cast<L*>(xs);
    float ss = 0.0f;
    for (int i = threadIdx.x; i < packs; i += kThreads) {
      const L xp = xv[i];
      xsv[i] = xp;
      T xe[kPerPack];
      memcpy(xe, &xp, sizeof(L));
#pragma unroll
      for (int j = 0; j < kPerPack; ++j) {
        const float v = to_float(xe[j]);
        ss = fmaf(v, v, ss);
      }
    }
    const float rstd = rsqrtf(block_sum(ss, scratch) / static_cast<float>(a.k) + a.eps);
    stage_wait();
    for (int i = threadIdx.x; i < packs; i += kThreads) {
      const L xp = xsv[i], wp = nsv[i];
      T xe[kPerPack], we[kPerPack], oe[kPerPack];
      memcpy(xe, &xp, sizeof(L));
      memcpy(we, &wp, sizeof(L));
#pragma unroll
      for (int j = 0; j < kPerPack; ++j) oe[j] = from_float<T>(to_float(we[j]) * round_to<T>(to_float(xe[j]) * rstd));
      L op;
      memcpy(&op, oe, sizeof(L));
      xsv[i] = op;
    }
  } else {
    const L* xv = reinterpret_cast<const L*>(a.x);
    L* xsv = reinterpret_cast<L*>(xs);
    for (int i = threadIdx.x; i < packs; i += kThreads) xsv[i] = xv[i];
  }
  __syncthreads();
  if (!active) return;  // no barrier below

  const L* xsv = reinterpret_cast<const L*>(xs);
  float acc[kRows];
#pragma unroll
  for (int r = 0; r < kRows; ++r) acc[r] = 0.0f;
  for (int base = 0; base < packs; base += 32 * kUnroll) {
    if (kPrefetch && base == 32 * kUnroll) {
      stage_wait();
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        const int p = base + u * 32 + lane;
#pragma unroll
        for (int r = 0; r < kRows; ++r) w[r][u] = (live[r] && p < packs) ? pre[(r * kUnroll + u) * 32 + lane] : L{};
      }
    } else if (base > 0) {
      load_batch(base);
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const int p = base + u * 32 + lane;
      if (p < packs) {
        const L xp = xsv[p];
#pragma unroll
        for (int r = 0; r < kRows; ++r) acc[r] += dot_pack<T, L>(w[r][u], xp);
      }
    }
  }
#pragma unroll
  for (int r = 0; r < kRows; ++r) acc[r] = warp_sum(acc[r]);
  if (lane != 0) return;

#pragma unroll
  for (int o = 0; o < kOuts; ++o) {
    const int row = row0 + o;
    if (!live[o]) break;
    if constexpr (Out == gemv_output::store) {
      static_cast<T*>(a.y)[row] = from_float<T>(acc[o]);
    } else if constexpr (Out == gemv_output::store_f32) {
      static_cast<float*>(a.y)[row] = acc[o];
    } else if constexpr (Out == gemv_output::add_residual) {
      T* y = static_cast<T*>(a.y);
      y[row] = from_float<T>(to_float(y[row]) + round_to<T>(acc[o]));
    } else {
      const float g = round_to<T>(acc[o]), u = round_to<T>(acc[kOuts + o]);
      static_cast<T*>(a.y)[row] = from_float<T>(round_to<T>(silu(g)) * u);
    }
  }
}

template <class T, class L, bool Norm, int kWarps, int kUnroll, int kOuts, bool kPrefetch>
void launch_out(const gemv_args<T>& a, gemv_output out, cudaStream_t stream) {
  const dim3 grid((a.n + kWarps * kOuts - 1) / (kWarps * kOuts));
  // Shared memory: x, and with the RMSNorm prologue the norm weight behind it (from pack `packs`
  // on: a.k is a whole number of packs, so both start 16-byte aligned).
  // kPrefetch: each warp's staged second batch behind them.
  const bool swiglu = out == gemv_output::swiglu;
  const std::size_t prefetch = kPrefetch
                                   ? static_cast<std::size_t>(kWarps) *
                                         (swiglu ? prefetch_packs_per_warp<gemv_output::swiglu, kUnroll, kOuts>()
                                                 : prefetch_packs_per_warp<gemv_output::store, kUnroll, kOuts>()) *
                                         sizeof(L)
                                   : 0;
  const std::size_t smem = (Norm ? 2 : 1) * static_cast<std::size_t>(a.k) * sizeof(T) + prefetch;
  auto run = [&](auto kernel) {
    opt_in_shared_memory(kernel, smem);
    launch(kernel, grid, dim3(kWarps * 32), smem, stream, a);
  };
  switch (out) {
    case gemv_output::store: run(gemv_kernel<T, L, Norm, gemv_output::store, kWarps, kUnroll, kOuts, kPrefetch>); break;
    case gemv_output::store_f32:
      run(gemv_kernel<T, L, Norm, gemv_output::store_f32, kWarps, kUnroll, kOuts, kPrefetch>);
      break;
    case gemv_output::add_residual:
      run(gemv_kernel<T, L, Norm, gemv_output::add_residual, kWarps, kUnroll, kOuts, kPrefetch>);
      break;
    case gemv_output::swiglu:
      run(gemv_kernel<T, L, Norm, gemv_output::swiglu, kWarps, kUnroll, kOuts, kPrefetch>);
      break;
  }
}

template <class T, class L, int kWarps, int kUnroll, int kOuts = 1, bool kPrefetch = false>
void launch_shape(const gemv_args<T>& a, gemv_input in, gemv_output out, cudaStream_t stream) {
  if (in == gemv_input::rmsnorm) launch_out<T, L, true, kWarps, kUnroll, kOuts, kPrefetch>(a, out, stream);
  else launch_out<T, L, false, kWarps, kUnroll, kOuts, kPrefetch>(a, out, stream);
}

// The variant table of gemv.cuh, as launch_shape<T, L, warps per block, packs per row in flight,
// rows per warp>. Only the 16-byte path (every Llama shape) has variants; narrower packs run 0.
template <class T, class L>
void launch_in(const gemv_args<T>& a, gemv_input in, gemv_output out, cudaStream_t stream) {
  if constexpr (sizeof(L) == 16) {
    switch (a.variant) {
      case 1: launch_shape<T, L, 4, 8>(a, in, out, stream); return;
      case 2: launch_shape<T, L, 8, 16>(a, in, out, stream); return;
      case 3: launch_shape<T, L, 4, 16>(a, in, out, stream); return;
      case 4: launch_shape<T, L, 8, 8, 2>(a, in, out, stream); return;
      case 5: launch_shape<T, L, 4, 8, 2>(a, in, out, stream); return;
      case 6: launch_shape<T, L, 8, 8, 1, true>(a, in, out, stream); return;
      default: break;
    }
  }
  launch_shape<T, L, 8, 8>(a, in, out, stream);
}

}  // namespace

template <class T>
void gemv(const gemv_args<T>& a, gemv_input in, gemv_output out, cudaStream_t stream) {
  assert(a.w && a.x && a.y && a.n > 0 && a.k > 0);
  assert(in != gemv_input::rmsnorm || a.norm_weight);
  assert(a.variant >= 0 && a.variant < kGemvVariants);
  // The widest pack that divides the row length (rows must start on a pack boundary) and that
  // every vector read is aligned to.
  const auto fits = [&](std::size_t bytes) {
    return (static_cast<std::size_t>(a.k) * sizeof(T)) % bytes == 0 && aligned_to(a.w, bytes) &&
           aligned_to(a.x, bytes) && (in != gemv_input::rmsnorm || aligned_to(a.norm_weight, bytes));
  };
  if (fits(16)) launch_in<T, uint4>(a, in, out, stream);
  else if (fits(8)) launch_in<T, uint2>(a, in, out, stream);
  else if (fits(4)) launch_in<T, unsigned>(a, in, out, stream);
  else launch_in<T, unsigned short>(a, in, out, stream);
}

template void gemv<__half>(const gemv_args<__half>&, gemv_input, gemv_output, cudaStream_t);
template void gemv<__nv_bfloat16>(const gemv_args<__nv_bfloat16>&, gemv_input, gemv_output, cudaStream_t);

const char* gemv_variant_name(int variant) {
  static const char* const names[kGemvVariants] = {"8w/u8",    "4w/u8",    "8w/u16",  "4w/u16",
                                                   "8w/u8/r2", "4w/u8/r2", "8w/u8/p1"};
  return variant >= 0 && variant < kGemvVariants ? names[variant] : "?";
}

}  // namespace cudabench::kernels::llm_decode
