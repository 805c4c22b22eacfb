// See embedding.cuh. One block per row, threads copy the row in 16-byte packs where the hidden
// size allows (it is a multiple of 8 for every real model) and element by element otherwise.
#include "kernels/llm_decode/embedding.cuh"

#include <cassert>

#include "cudabench/gpu/cuda_check.hpp"
#include "kernels/llm_decode/launch.cuh"

namespace cudabench::kernels::llm_decode {
namespace {

template <class T>
__global__ void embedding_kernel(const T* table, int vocab, int hidden, const std::int32_t* tokens, const int* pos,
                                 T* out) {
  pdl_trigger();
  pdl_wait();  // tokens/pos come from the previous step's argmax
  const int r = blockIdx.x;
  int token = pos ? tokens[*pos] : tokens[r];
  // An id outside the vocabulary would read out of bounds; clamp (verify() checks ids separately).
  token = token < 0 ? 0 : (token >= vocab ? vocab - 1 : token);
  const T* src = table + static_cast<std::size_t>(token) * hidden;
  T* dst = out + static_cast<std::size_t>(r) * hidden;
  if (hidden % 8 == 0) {
    const uint4* s = reinterpret_cast<const uint4*>(src);
    uint4* d = reinterpret_cast<uint4*>(dst);
    for (int i = threadIdx.x; i < hidden / 8; i += blockDim.x) d[i] = s[i];
  } else {
    for (int i = threadIdx.x; i < hidden; i += blockDim.x) dst[i] = src[i];
  }
}

}  // namespace

template <class T>
void embedding(const T* table, int vocab, int hidden, const std::int32_t* tokens, const int* pos, int rows, T* out,
               cudaStream_t stream) {
  assert(table && tokens && out && rows > 0 && hidden > 0 && vocab > 0);
  assert(!pos || rows == 1);
  launch(embedding_kernel<T>, dim3(rows), dim3(256), 0, stream, table, vocab, hidden, tokens, pos, out);
}

template void embedding<__half>(const __half*, int, int, const std::int32_t*, const int*, int, __half*, cudaStream_t);
template void embedding<__nv_bfloat16>(const __nv_bfloat16*, int, int, const std::int32_t*, const int*, int,
                                       __nv_bfloat16*, cudaStream_t);

}  // namespace cudabench::kernels::llm_decode
