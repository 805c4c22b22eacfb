// See swiglu.cuh. Grid-stride over rows x n elements in 16-byte packs where the shape allows;
// fp32 math, transformers' rounding points.
#include "kernels/llm_decode/swiglu.cuh"

#include <algorithm>
#include <cassert>
#include <cstring>

#include "cudabench/gpu/cuda_check.hpp"
#include "kernels/llm_decode/device_utils.cuh"

namespace cudabench::kernels::llm_decode {
namespace {

// `L`: uint4 (8 elements) when n % 8 == 0 and the buffers are 16-byte aligned, else one element.
template <class T, class L>
__global__ void swiglu_kernel(const T* gu, int rows, int n, T* act) {
  constexpr int kPer = static_cast<int>(sizeof(L) / sizeof(T));
  const int packs = n / kPer;
  const std::size_t total = static_cast<std::size_t>(rows) * packs;
  const L* guv = reinterpret_cast<const L*>(gu);
  L* av = reinterpret_cast<L*>(act);
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < total;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::size_t t = i / packs, c = i % packs;
    const L gp = guv[t * 2 * packs + c], up = guv[t * 2 * packs + packs + c];
    T g[kPer], u[kPer], o[kPer];
    memcpy(g, &gp, sizeof(L));
    memcpy(u, &up, sizeof(L));
#pragma unroll
    for (int e = 0; e < kPer; ++e) o[e] = from_float<T>(round_to<T>(silu(to_float(g[e]))) * to_float(u[e]));
    L op;
    memcpy(&op, o, sizeof(L));
    av[i] = op;
  }
}

template <class T, class L>
void launch_packs(const T* gu, int rows, int n, T* act, cudaStream_t stream) {
  const std::size_t total = static_cast<std::size_t>(rows) * (n / (sizeof(L) / sizeof(T)));
  const auto blocks = static_cast<unsigned>(std::min<std::size_t>((total + 255) / 256, 4096));  // grid-stride
  swiglu_kernel<T, L><<<blocks, 256, 0, stream>>>(gu, rows, n, act);
}

}  // namespace

template <class T>
void swiglu(const T* gu, int rows, int n, T* act, cudaStream_t stream) {
  assert(gu && act && rows > 0 && n > 0);
  if (n % 8 == 0 && aligned_to(gu, 16) && aligned_to(act, 16)) launch_packs<T, uint4>(gu, rows, n, act, stream);
  else launch_packs<T, T>(gu, rows, n, act, stream);
  CUDABENCH_CHECK_LAUNCH();
}

template void swiglu<__half>(const __half*, int, int, __half*, cudaStream_t);
template void swiglu<__nv_bfloat16>(const __nv_bfloat16*, int, int, __nv_bfloat16*, cudaStream_t);

}  // namespace cudabench::kernels::llm_decode
