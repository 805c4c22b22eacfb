#include "cudabench/timing.hpp"

#include "cudabench/cuda_check.hpp"

namespace cudabench {

cuda_stream::cuda_stream() { CUDABENCH_CHECK_CUDA(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
cuda_stream::~cuda_stream() {
  if (s_) cudaStreamDestroy(s_);
}

cuda_event::cuda_event() { CUDABENCH_CHECK_CUDA(cudaEventCreate(&e_)); }
cuda_event::~cuda_event() {
  if (e_) cudaEventDestroy(e_);
}
void cuda_event::record(cudaStream_t s) { CUDABENCH_CHECK_CUDA(cudaEventRecord(e_, s)); }
float cuda_event::since(const cuda_event& start) const {
  float ms = 0;
  CUDABENCH_CHECK_CUDA(cudaEventElapsedTime(&ms, start.e_, e_));
  return ms;
}

l2_flusher::l2_flusher(std::size_t l2_bytes) : buf_(2 * (l2_bytes ? l2_bytes : (64u << 20))) {}
void l2_flusher::flush(cudaStream_t s) { CUDABENCH_CHECK_CUDA(cudaMemsetAsync(buf_.get(), 0, buf_.bytes(), s)); }

}  // namespace cudabench
