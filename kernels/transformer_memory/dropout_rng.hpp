// The dropout masks of transformer_memory's train mode: a counter-based RNG, so the GPU kernels
// and the CPU reference draw the same mask for an element from (site seed, element index) alone,
// with no state to carry between launches or chunks. Header-only and host/device: the unit tests
// (no CUDA) and the kernels include the same code. It keeps the host side's namespace,
// cudabench::transformer (the model and the CPU reference call it unqualified), not the kernels'.
//
// keep(element) <=> the top 24 bits of splitmix64(seed + index * golden) >= threshold, where
// threshold = round(p * 2^24): the drop rate is threshold / 2^24, p to within 3e-8. The
// threshold and the scale 1 / (1 - p) are computed once on the host and handed to both sides,
// so a device float rounding can never flip one element's decision.
#pragma once
#include <cmath>
#include <cstdint>
#include <vector>

#if defined(__CUDACC__)
#define CUDABENCH_HD __host__ __device__
#else
#define CUDABENCH_HD
#endif

namespace cudabench::transformer {

CUDABENCH_HD inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Elements whose 24-bit draw is below this are dropped.
inline std::uint32_t dropout_threshold(double p) { return static_cast<std::uint32_t>(std::lround(p * 16777216.0)); }

CUDABENCH_HD inline bool dropout_keep(std::uint64_t seed, std::uint64_t index, std::uint32_t threshold) {
  return static_cast<std::uint32_t>(splitmix64(seed + index * 0x9e3779b97f4a7c15ull) >> 40) >= threshold;
}

// Every place the forward draws a mask has its own seed. Sites per layer, in forward order;
// decoder layers are numbered after the encoder's.
enum class dropout_site : int {
  self_attention_probs = 0,  // inside scaled_dot_product_attention, element (b, h, i, j)
  self_attention_out = 1,    // dropout1 on out_proj's output
  cross_attention_probs = 2,
  cross_attention_out = 3,  // decoder dropout2
  ffn_hidden = 4,           // the dropout between ReLU and linear2
  ffn_out = 5,              // encoder dropout2 / decoder dropout3
};

inline std::uint64_t dropout_site_seed(std::uint64_t seed, int layer, dropout_site site) {
  return splitmix64(seed ^ splitmix64(static_cast<std::uint64_t>(layer) * 8 + static_cast<std::uint64_t>(site)));
}

// The mask that (site seed, threshold) draws over elements [0, n): 1 kept, 0 dropped. Host-only;
// the torch_match test hook (torch_dump.hpp) writes it for PyTorch to apply.
inline std::vector<std::uint8_t> dropout_mask(std::uint64_t site_seed, std::uint32_t threshold, std::size_t n) {
  std::vector<std::uint8_t> m(n);
  for (std::size_t i = 0; i < n; ++i) m[i] = dropout_keep(site_seed, i, threshold) ? 1 : 0;
  return m;
}

}  // namespace cudabench::transformer
