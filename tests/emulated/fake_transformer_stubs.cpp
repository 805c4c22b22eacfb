// The kernels the emulated test links but never runs: cast_from_float (fp16 models only), the
// tensor-core attention forwards (wmma: the emulator cannot run them, and train mode calls the
// CUDA-core kernel) and the attention tuner (inference only). Each throws if reached.
#include <stdexcept>
#include <vector>

#include "kernels/train_step/cast.cuh"
#include "kernels/transformer_memory/attention.cuh"
#include "kernels/transformer_memory/attention_flash_tf32x3.cuh"
#include "kernels/transformer_memory/attention_tf32x3.cuh"
#include "workloads/transformer_memory/attention_tuner.hpp"

namespace cudabench {
namespace kernels {
namespace train_step {
void cast_from_float(void*, const float*, std::size_t, dtype, cudaStream_t) { throw std::logic_error("cast"); }
}  // namespace train_step
namespace transformer_memory {
// The tensor-core forwards (wmma): never reached, since train mode runs the CUDA-core kernel.
void attention_forward_tf32x3(const attention_args&, cudaStream_t) { throw std::logic_error("tf32x3"); }
void attention_forward_flash_tf32x3(const attention_args&, cudaStream_t) { throw std::logic_error("flash tf32x3"); }
}  // namespace transformer_memory
}  // namespace kernels
namespace transformer {
attention_choice tune_attention(const std::vector<attention_workload>&, cudaStream_t) {
  throw std::logic_error("tuner");
}
}  // namespace transformer
}  // namespace cudabench
