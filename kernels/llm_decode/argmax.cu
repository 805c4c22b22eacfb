// See argmax.cuh. One block of 1024 threads: strided scan per thread, then (value, index) pairs
// reduced by warp shuffles and a final warp.
#include "kernels/llm_decode/argmax.cuh"

#include <cassert>
#include <cmath>

#include "cudabench/gpu/cuda_check.hpp"
#include "kernels/common/reduce.cuh"
#include "kernels/llm_decode/launch.cuh"

namespace cudabench::kernels::llm_decode {
namespace {

constexpr int kThreads = 1024;

// Is (v, i) before (bv, bi) in torch.argmax's order? NaN is the largest; ties go to the lower index.
__device__ __forceinline__ bool better(float v, int i, float bv, int bi) {
  const bool vn = isnan(v), bn = isnan(bv);
  if (vn != bn) return vn;
  if (vn || v == bv) return i < bi;
  return v > bv;
}
struct better_pair {
  __device__ __forceinline__ bool operator()(float v, int i, float bv, int bi) const { return better(v, i, bv, bi); }
};

__global__ void __launch_bounds__(kThreads)
    argmax_kernel(const float* logits, int vocab, std::int32_t* tokens, int capacity, int* pos, int prefill_last) {
  __shared__ float sv[32];
  __shared__ int si[32];
  pdl_trigger();
  pdl_wait();
  float bv = -INFINITY;
  int bi = 0x7fffffff;
  for (int i = threadIdx.x; i < vocab; i += kThreads)
    if (better(logits[i], i, bv, bi)) bv = logits[i], bi = i;
  warp_best(bv, bi, better_pair{});
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) sv[warp] = bv, si[warp] = bi;
  __syncthreads();
  if (warp != 0) return;
  bv = sv[lane];
  bi = si[lane];
  warp_best(bv, bi, better_pair{});
  if (lane == 0) {
    const int p = prefill_last >= 0 ? prefill_last : *pos;
    if (p + 1 < capacity) {
      tokens[p + 1] = bi;
      *pos = p + 1;
    }
  }
}

}  // namespace

void argmax_next_token(const float* logits, int vocab, std::int32_t* tokens, int capacity, int* pos, int prefill_last,
                       cudaStream_t stream) {
  assert(logits && tokens && pos && vocab > 0 && capacity > 0);
  launch(argmax_kernel, dim3(1), dim3(kThreads), 0, stream, logits, vocab, tokens, capacity, pos, prefill_last);
}

}  // namespace cudabench::kernels::llm_decode
