// Workload kind `memory_bandwidth`: how fast bytes move.
//
// op: d2d (device -> device copy; counts bytes read + written = 2·bytes), h2d_pinned / d2h_pinned
// (cudaMemcpyAsync to/from page-locked host memory), h2d_pageable / d2h_pageable (from/to ordinary
// host memory, staged by the driver), memset (cudaMemsetAsync; counts bytes written once).
// bytes: the buffer size (>= 1024; "1GiB" style accepted by the suite parser).
// Metrics: gbps (GB/s = 1e9 bytes/s), time_ms.
// Validation: the source holds a seeded pattern (memset: a constant byte), the destination is
// poisoned, one run, then the destination is compared with the pattern over every byte (on the
// device for device destinations, on the host for host ones).
#pragma once
#include <memory>

#include "cudabench/gpu/workload.hpp"

namespace cudabench {

std::unique_ptr<workload> make_memory_bandwidth(const workload_spec& spec);

}  // namespace cudabench
