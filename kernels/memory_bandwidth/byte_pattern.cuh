// Seeded byte patterns for the memory_bandwidth workload and a device check that counts where a
// buffer differs from one.
//
// Layout: byte i of a buffer is byte (i % 8) (little-endian) of the 64-bit word
// pattern_word(seed, i / 8), so a buffer is a sequence of 8-byte words plus a tail of < 8 bytes;
// the pattern is a pure function of (seed, i), regenerated on the host or the device without a copy
// of the source. A constant byte (memset) is the pattern with every word = the byte repeated.
// Bound: one read (check) or one write (fill) of the buffer at near copy bandwidth; never timed.
#pragma once
#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

#include "kernels/common/random_fill.cuh"

namespace cudabench::kernels::memory_bandwidth {

// What a buffer should hold: the seeded pattern, or one byte value everywhere.
struct byte_pattern {
  bool constant = false;
  std::uint64_t seed = 0;  // used when !constant
  std::uint8_t value = 0;  // used when constant

  __host__ __device__ std::uint64_t word(std::uint64_t w) const {
    return constant ? 0x0101010101010101ull * value : splitmix64(seed + w);
  }
  __host__ __device__ std::uint8_t byte(std::uint64_t i) const {
    return static_cast<std::uint8_t>(word(i / 8) >> (8 * (i % 8)));
  }
};

// Result of a check: how many 8-byte words (the tail counts as one more word) differ, and the
// byte offset of the first differing word (~0ull when none).
struct mismatch_report {
  unsigned long long mismatched_words = 0;
  unsigned long long first_offset = ~0ull;
};

// Write `pattern` over `bytes` bytes at `p` (8-byte aligned). Asynchronous on `stream`.
void fill_byte_pattern(void* p, std::size_t bytes, byte_pattern pattern, cudaStream_t stream);

// Compare `bytes` bytes at device pointer `p` (8-byte aligned) with `pattern` over the WHOLE
// buffer; `report` is a device pointer, reset and written by this call. Asynchronous on `stream`.
void count_pattern_mismatches(const void* p, std::size_t bytes, byte_pattern pattern, mismatch_report* report,
                              cudaStream_t stream);

}  // namespace cudabench::kernels::memory_bandwidth
