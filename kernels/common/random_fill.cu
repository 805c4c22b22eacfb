// See random_fill.cuh. Grid-stride loop, one element per thread per step.
#include "kernels/common/random_fill.cuh"

#include "cudabench/gpu/cuda_check.hpp"
#include "kernels/common/convert.cuh"

namespace cudabench::kernels {
namespace {

template <class T>
__global__ void fill_uniform_kernel(T* p, std::size_t n, std::uint64_t seed, float lo, float hi) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    p[i] = from_float<T>(uniform_at(seed, i, lo, hi));
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
