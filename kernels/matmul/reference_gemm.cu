// See reference_gemm.cuh. One warp per sampled output entry: lanes stride over k (so a warp reads
// a row of A and a row of B with coalesced loads), accumulate products in double, then reduce with
// shuffles. Deliberately naive: no tiling, no tensor cores, nothing shared with cuBLASLt.
#include "kernels/matmul/reference_gemm.cuh"

#include <stdexcept>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include "cudabench/gpu/cuda_check.hpp"
#include "kernels/common/convert.cuh"
#include "kernels/common/reduce.cuh"

namespace cudabench::kernels::matmul {
namespace {

// Exact widening: every value of these types is representable in double.
template <class T>
__device__ double to_double(T v) {
  return static_cast<double>(to_float(v));
}

constexpr int warp_size = 32;
constexpr int threads_per_block = 128;  // 4 samples per block

template <class TIn, class TOut>
__global__ void reference_gemm_samples_kernel(const TIn* __restrict__ a, const TIn* __restrict__ b,
                                              const TOut* __restrict__ c, std::int64_t m, std::int64_t n,
                                              std::int64_t k, const gemm_sample* __restrict__ samples, int count,
                                              gemm_sample_result* __restrict__ out) {
  // blockDim is a multiple of 32, so all lanes of a warp share `sample` and leave together.
  const int sample = (blockIdx.x * blockDim.x + threadIdx.x) / warp_size;
  const int lane = threadIdx.x % warp_size;
  if (sample >= count) return;
  const gemm_sample s = samples[sample];
  const std::int64_t batch = s.batch, row = s.row, col = s.col;
  const TIn* a_row = a + (batch * m + row) * k;
  const TIn* b_row = b + (batch * n + col) * k;
  double dot = 0, sum_sq = 0;
  for (std::int64_t l = lane; l < k; l += warp_size) {
    // The product of two values with <= 24-bit significands is exact in double.
    const double t = to_double(a_row[l]) * to_double(b_row[l]);
    dot += t;
    sum_sq += t * t;
  }
  // Lane 0 gets the same pairs a shfl_down tree would give it (reduce.cuh).
  dot = warp_sum(dot);
  sum_sq = warp_sum(sum_sq);
  if (lane == 0) {
    gemm_sample_result r;
    r.ref = dot;
    r.got = to_double(c[(batch * m + row) * n + col]);
    r.l2 = sqrt(sum_sq);
    out[sample] = r;
  }
}

template <class TIn, class TOut>
void launch(const void* a, const void* b, const void* c, std::int64_t m, std::int64_t n, std::int64_t k,
            const gemm_sample* samples, int count, gemm_sample_result* out, cudaStream_t stream) {
  constexpr int samples_per_block = threads_per_block / warp_size;
  const unsigned blocks = static_cast<unsigned>((count + samples_per_block - 1) / samples_per_block);
  reference_gemm_samples_kernel<TIn, TOut>
      <<<blocks, threads_per_block, 0, stream>>>(static_cast<const TIn*>(a), static_cast<const TIn*>(b),
                                                 static_cast<const TOut*>(c), m, n, k, samples, count, out);
  CUDABENCH_CHECK_LAUNCH();
}

template <class TIn>
void dispatch_out(dtype out_type, const void* a, const void* b, const void* c, std::int64_t m, std::int64_t n,
                  std::int64_t k, const gemm_sample* samples, int count, gemm_sample_result* out, cudaStream_t stream) {
  switch (out_type) {
    case dtype::fp32: return launch<TIn, float>(a, b, c, m, n, k, samples, count, out, stream);
    case dtype::fp16: return launch<TIn, __half>(a, b, c, m, n, k, samples, count, out, stream);
    case dtype::bf16: return launch<TIn, __nv_bfloat16>(a, b, c, m, n, k, samples, count, out, stream);
    case dtype::tf32:
    case dtype::fp8_e4m3: break;
  }
  throw std::invalid_argument("reference_gemm_samples: unsupported output type");
}

}  // namespace

void reference_gemm_samples(dtype in_type, dtype out_type, const void* a, const void* b, const void* c, std::int64_t m,
                            std::int64_t n, std::int64_t k, const gemm_sample* samples, int count,
                            gemm_sample_result* out, cudaStream_t stream) {
  if (m < 1 || n < 1 || k < 1) throw std::invalid_argument("reference_gemm_samples: empty matrix");
  if (count <= 0) return;
  switch (in_type) {
    case dtype::fp32: return dispatch_out<float>(out_type, a, b, c, m, n, k, samples, count, out, stream);
    case dtype::fp16: return dispatch_out<__half>(out_type, a, b, c, m, n, k, samples, count, out, stream);
    case dtype::bf16: return dispatch_out<__nv_bfloat16>(out_type, a, b, c, m, n, k, samples, count, out, stream);
    case dtype::fp8_e4m3: return dispatch_out<__nv_fp8_e4m3>(out_type, a, b, c, m, n, k, samples, count, out, stream);
    case dtype::tf32: break;
  }
  throw std::invalid_argument("reference_gemm_samples: unsupported input type");
}

}  // namespace cudabench::kernels::matmul
