// The host's own memcpy rate for a pageable buffer, reported beside a pageable row. The driver
// copies pageable memory through its own page-locked staging buffers with the CPU, so a pageable
// h2d/d2h row depends on the host's memory system -- on a VM well below the bus (the H200's pinned
// copies run at ~54 GB/s, its pageable ones at 7-15). It is not a bound: on the H200's VM the rows
// ran at 0.6-2.0x this single-threaded rate and followed it only in part between processes (r
// 0.36-0.79). The rate is measured once at setup, outside the timing, so a row's spread can be read
// against the host's (docs/statistics.md, pageable copies).
#pragma once
#include <cstddef>

namespace cudabench {

struct host_copy_rate {
  double gbps = 0;      // bytes / the fastest of the trials, in GB/s (1e9 bytes)
  bool copied = false;  // the copy's destination equals its source byte for byte
};

// Copies `bytes` from src into a fresh pageable buffer (touched first, so page faults stay out of
// the timing) `trials` times; throws std::invalid_argument for bytes == 0 or trials < 1.
host_copy_rate measure_host_copy(const std::byte* src, std::size_t bytes, int trials);

}  // namespace cudabench
