// What the LLM kernel tests share (test_llm_kernels.cpp on the GPU; test_llm_small_kernels.cpp on
// the GPU and through the kernel emulator): seeded fp16 values, uploads and downloads, the relative
// error they are judged by.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "cudabench/device_memory.hpp"
#include "cudabench/gpu/cuda_check.hpp"
#include "kernels/common/random_fill.cuh"

namespace cudabench::llm_test {

inline double rh(double v) { return __half2float(__float2half_rn(static_cast<float>(v))); }  // round through fp16

// Seeded host values, already representable in fp16.
inline std::vector<float> random_values(std::size_t n, std::uint64_t seed, float lo, float hi) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<float>(rh(kernels::uniform_at(seed, i, lo, hi)));
  return v;
}

inline device_buffer<__half> upload_half(const std::vector<float>& v) {
  std::vector<__half> h(v.size());
  for (std::size_t i = 0; i < v.size(); ++i) h[i] = __float2half_rn(v[i]);
  device_buffer<__half> d(v.size());
  CUDABENCH_CHECK_CUDA(cudaMemcpy(d.get(), h.data(), h.size() * 2, cudaMemcpyHostToDevice));
  return d;
}

inline std::vector<float> download_half(const __half* p, std::size_t n) {
  std::vector<__half> h(n);
  CUDABENCH_CHECK_CUDA(cudaDeviceSynchronize());
  CUDABENCH_CHECK_CUDA(cudaMemcpy(h.data(), p, n * 2, cudaMemcpyDeviceToHost));
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = __half2float(h[i]);
  return v;
}

template <class T>
inline device_buffer<T> upload(const std::vector<T>& v) {
  device_buffer<T> d(v.size());
  CUDABENCH_CHECK_CUDA(cudaMemcpy(d.get(), v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

template <class T>
inline std::vector<T> download(const T* p, std::size_t n) {
  std::vector<T> v(n);
  CUDABENCH_CHECK_CUDA(cudaDeviceSynchronize());
  CUDABENCH_CHECK_CUDA(cudaMemcpy(v.data(), p, n * sizeof(T), cudaMemcpyDeviceToHost));
  return v;
}

// max |got - want| / max |want|
inline double rel_error(const std::vector<float>& got, const std::vector<double>& want) {
  double scale = 0, worst = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    scale = std::max(scale, std::abs(want[i]));
    const double d = std::abs(got[i] - want[i]);
    if (!(d <= worst)) worst = d;
  }
  return worst / std::max(scale, 1e-30);
}

inline double silu(double x) { return x / (1 + std::exp(-x)); }

// Softmax attention of one query over keys 0..len-1 of one KV head, in double.
inline std::vector<double> naive_attention(const float* q, const std::vector<float>& kc, const std::vector<float>& vc,
                                           int kvh, int max_len, int hd, int len) {
  std::vector<double> s(len), out(hd, 0.0);
  double mx = -1e300, sum = 0;
  for (int t = 0; t < len; ++t) {
    double dot = 0;
    for (int d = 0; d < hd; ++d)
      dot += static_cast<double>(q[d]) * kc[(static_cast<std::size_t>(kvh) * max_len + t) * hd + d];
    s[t] = dot / std::sqrt(static_cast<double>(hd));
    mx = std::max(mx, s[t]);
  }
  for (double& v : s) sum += (v = std::exp(v - mx));
  for (int t = 0; t < len; ++t)
    for (int d = 0; d < hd; ++d) out[d] += s[t] / sum * vc[(static_cast<std::size_t>(kvh) * max_len + t) * hd + d];
  return out;
}

}  // namespace cudabench::llm_test
