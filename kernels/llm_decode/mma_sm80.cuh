// The tensor-core primitives the prefill attention kernel is written in (sm_80+; include from .cu
// files only): 16-byte asynchronous global->shared copies, ldmatrix fragment loads and the
// m16n8k16 matrix multiply-accumulate in fp16 or bf16 with fp32 accumulation.
// Fragment layouts (PTX ISA, "mma.m16n8k16"): with g = lane / 4 and c = 2 * (lane % 4),
//   A (16x16, row-major) a0 = A[g][c..c+1], a1 = A[g+8][c..c+1], a2 = A[g][c+8..], a3 = A[g+8][c+8..]
//   B (16x8, "col")      b0 = B[c..c+1][g],  b1 = B[c+8..c+9][g]
//   C (16x8, fp32)       c0, c1 = C[g][c], C[g][c+1];  c2, c3 = C[g+8][c], C[g+8][c+1]
// so the C fragments of two neighbouring 8-column tiles, rounded to 16 bits, are exactly the A
// fragment of a 16-column step: attention's probabilities feed P·V without leaving registers.
#pragma once
#include <cstdint>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace cudabench::kernels::llm_decode {

__device__ __forceinline__ std::uint32_t smem_address(const void* p) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(p));
}

// 16 bytes global -> shared, asynchronously; `valid` false writes 16 zero bytes instead (src is
// not read, but must be a valid address).
__device__ __forceinline__ void cp_async_16(void* dst, const void* src, bool valid) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(smem_address(dst)), "l"(src),
               "r"(valid ? 16 : 0));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
// Wait until at most N of this thread's committed groups are still in flight.
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

// Four 8x8 16-bit matrices; lane l gives the address of row l % 8 of matrix l / 8.
__device__ __forceinline__ void ldmatrix_x4(std::uint32_t (&r)[4], const void* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_address(row)));
}
// The same, each matrix transposed (a row-major K x N tile read as the B operand).
__device__ __forceinline__ void ldmatrix_x4_trans(std::uint32_t (&r)[4], const void* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_address(row)));
}

// c += a * b, m16n8k16, fp32 accumulators.
template <class T>
__device__ __forceinline__ void mma_16816(float (&c)[4], const std::uint32_t (&a)[4], std::uint32_t b0,
                                          std::uint32_t b1);
template <>
__device__ __forceinline__ void mma_16816<__half>(float (&c)[4], const std::uint32_t (&a)[4], std::uint32_t b0,
                                                  std::uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
template <>
__device__ __forceinline__ void mma_16816<__nv_bfloat16>(float (&c)[4], const std::uint32_t (&a)[4], std::uint32_t b0,
                                                         std::uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
      "{%0, %1, %2, %3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// Two floats rounded to T and packed as one 32-bit register (the first in the low half).
template <class T>
__device__ __forceinline__ std::uint32_t pack_pair(float lo, float hi);
template <>
__device__ __forceinline__ std::uint32_t pack_pair<__half>(float lo, float hi) {
  const __half2 h = __floats2half2_rn(lo, hi);
  std::uint32_t u;
  memcpy(&u, &h, 4);
  return u;
}
template <>
__device__ __forceinline__ std::uint32_t pack_pair<__nv_bfloat16>(float lo, float hi) {
  const __nv_bfloat162 h = __floats2bfloat162_rn(lo, hi);
  std::uint32_t u;
  memcpy(&u, &h, 4);
  return u;
}

}  // namespace cudabench::kernels::llm_decode
