// Seeded, counter-based uniform random fills for inputs and weights.
// Element i of a fill is a pure function of (seed, i) -- splitmix64 -- so a host reference can
// regenerate any element without copying the buffer back, and results do not depend on the
// launch shape. Memory-bound: one write per element; a few GB/s of work, never timed.
#pragma once
#include <cstddef>
#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>

namespace cudabench::kernels {

__host__ __device__ inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Uniform in [lo, hi) with 24 random bits; identical on host and device.
__host__ __device__ inline float uniform_at(std::uint64_t seed, std::uint64_t i, float lo, float hi) {
  const std::uint64_t r = splitmix64(seed * 0x632be59bd9b4e019ull + i);
  const float u = static_cast<float>(r >> 40) * (1.0f / 16777216.0f);
  return lo + (hi - lo) * u;
}

// Launchers: fill `n` elements with uniform_at(seed, i, lo, hi) converted to the element type
// (round to nearest). Check the launch; asynchronous on `stream`.
void fill_uniform(float* p, std::size_t n, std::uint64_t seed, float lo, float hi, cudaStream_t stream);
void fill_uniform(__half* p, std::size_t n, std::uint64_t seed, float lo, float hi, cudaStream_t stream);
void fill_uniform(__nv_bfloat16* p, std::size_t n, std::uint64_t seed, float lo, float hi, cudaStream_t stream);
void fill_uniform(__nv_fp8_e4m3* p, std::size_t n, std::uint64_t seed, float lo, float hi, cudaStream_t stream);

}  // namespace cudabench::kernels
