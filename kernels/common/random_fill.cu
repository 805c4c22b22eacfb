// See random_fill.cuh. Grid-stride loop, one element per thread per step.
#include "kernels/common/random_fill.cuh"

#include "cudabench/cuda_check.hpp"

namespace cudabench::kernels {
namespace {

template <class T>
__device__ T convert_from_float(float v) {
  return static_cast<T>(v);
}
template <>
__device__ __half convert_from_float<__half>(float v) {
  return __float2half_rn(v);
}
template <>
__device__ __nv_bfloat16 convert_from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}
template <>
__device__ __nv_fp8_e4m3 convert_from_float<__nv_fp8_e4m3>(float v) {
  return __nv_fp8_e4m3(v);
}

template <class T>
__global__ void fill_uniform_kernel(T* p, std::size_t n, std::uint64_t seed, float lo, float hi) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    p[i] = convert_from_float<T>(uniform_at(seed, i, lo, hi));
}

template <class T>
void launch_fill(T* p, std::size_t n, std::uint64_t seed, float lo, float hi, cudaStream_t stream) {
  if (n == 0) return;
  constexpr int threads = 256;
  const std::size_t blocks_needed = (n + threads - 1) / threads;
  const unsigned blocks = static_cast<unsigned>(blocks_needed < 65536 ? blocks_needed : 65536);
  fill_uniform_kernel<T><<<blocks, threads, 0, stream>>>(p, n, seed, lo, hi);
  CUDABENCH_CHECK_LAUNCH();
}

}  // namespace

void fill_uniform(float* p, std::size_t n, std::uint64_t seed, float lo, float hi, cudaStream_t s) {
  launch_fill(p, n, seed, lo, hi, s);
}
void fill_uniform(__half* p, std::size_t n, std::uint64_t seed, float lo, float hi, cudaStream_t s) {
  launch_fill(p, n, seed, lo, hi, s);
}
void fill_uniform(__nv_bfloat16* p, std::size_t n, std::uint64_t seed, float lo, float hi, cudaStream_t s) {
  launch_fill(p, n, seed, lo, hi, s);
}
void fill_uniform(__nv_fp8_e4m3* p, std::size_t n, std::uint64_t seed, float lo, float hi, cudaStream_t s) {
  launch_fill(p, n, seed, lo, hi, s);
}

}  // namespace cudabench::kernels
