// Setup-time choice of the fp32 head_dim-64 attention kernel: every attention_variant is checked
// against the CUDA-core kernel on one sequence of the first shape (a candidate that disagrees by
// more than 1e-4 relative, or rejects the shape, is dropped) and then timed with CUDA events on the
// real shapes, weighted by how often the forward pass calls each; the fastest wins. Which kernel
// is fastest depends on the GPU, its clocks and the shape, so it is measured, not assumed.
// The candidates write only where the forward pass would (args.o), so tuning allocates no device
// memory; it takes a few dozen attention calls (milliseconds to ~0.1 s at the default shape).
#pragma once
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "kernels/transformer_memory/attention.cuh"

namespace cudabench::transformer {

struct attention_workload {
  kernels::transformer_memory::attention_args args;  // fp32, head_dim 64, inputs already filled
  int calls = 1;                                     // how many times one forward pass runs this shape
};

struct attention_choice {
  kernels::transformer_memory::attention_variant variant = kernels::transformer_memory::attention_variant::cuda_core;
  std::string summary;  // per-candidate times and check results, for logs and tests
};

// Synchronises `stream`. `shapes` must not be empty.
attention_choice tune_attention(const std::vector<attention_workload>& shapes, cudaStream_t stream);

}  // namespace cudabench::transformer
