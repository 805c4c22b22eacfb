// One stamp per block of each SM's cycle counter beside the GPU's nanosecond timer
// (sm_clock_stamps.hpp says what the pairs are for).
#pragma once
#include <cuda_runtime.h>

#include "cudabench/sm_clock_stamps.hpp"

namespace cudabench::kernels {

// `blocks` one-warp blocks; block b writes out[b] (smid, clock64, %globaltimer, written = 1).
// With blocks = the SM count and nothing else running on the stream, the blocks spread over the
// SMs; where two share one, the pairing keeps the first.
void stamp_sm_clocks(sm_stamp* out, int blocks, cudaStream_t stream);

}  // namespace cudabench::kernels
