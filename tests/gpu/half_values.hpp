// fp16/bf16 on the host for the GPU tests: one float <-> storage conversion per type, so a test
// can hold exactly the values it uploads (round on the host, keep the rounded floats as the
// reference's inputs).
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

namespace cudabench::test {

inline float to_f(__half v) { return __half2float(v); }
inline float to_f(__nv_bfloat16 v) { return __bfloat162float(v); }

// Round to nearest.
template <class T>
T from_f(float v);
template <>
inline __half from_f<__half>(float v) {
  return __float2half_rn(v);
}
template <>
inline __nv_bfloat16 from_f<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}

}  // namespace cudabench::test
