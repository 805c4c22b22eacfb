// Device-to-device copy kernel with 16-byte vector loads and stores: dst[i] = src[i] for `bytes`
// bytes. The d2d memory_bandwidth workload times it against cudaMemcpyAsync at setup and keeps the
// faster (see memory_bandwidth.cpp).
//
// Layout: both buffers 16-byte aligned, contiguous; the body moves uint4 words, a tail of < 16
// bytes is copied bytewise. Bound: 2·bytes of DRAM traffic (read + write), i.e. the HBM copy
// bandwidth (~4.3 TB/s counting read + write on an H200, ~90% of the 4.8 TB/s peak).
#pragma once
#include <cstddef>

#include <cuda_runtime.h>

namespace cudabench::kernels::memory_bandwidth {

// How many blocks of the copy kernel `device` holds at once (SMs x occupancy); query once at setup.
int copy_vec16_resident_blocks(int device);

// `grid_blocks` (from copy_vec16_resident_blocks) sizes a grid of resident blocks that stride over
// the buffer; fewer blocks are launched when the buffer is small.
void copy_vec16(void* dst, const void* src, std::size_t bytes, int grid_blocks, cudaStream_t stream);

}  // namespace cudabench::kernels::memory_bandwidth
