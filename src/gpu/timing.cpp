#include "cudabench/gpu/timing.hpp"

#include "cudabench/gpu/cuda_check.hpp"

namespace cudabench {

l2_flusher::l2_flusher(std::size_t l2_bytes) : buf_(2 * (l2_bytes ? l2_bytes : (64u << 20))) {}
void l2_flusher::flush(cudaStream_t s) { CUDABENCH_CHECK_CUDA(cudaMemsetAsync(buf_.get(), 0, buf_.bytes(), s)); }

}  // namespace cudabench
