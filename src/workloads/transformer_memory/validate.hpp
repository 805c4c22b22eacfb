// Validation of transformer::model against the CPU double reference (reference.hpp): snapshot the
// device weights and inputs to the host, run the GPU forward, compare every output element.
// Split in two so a test can corrupt the device weights between the snapshot and the run.
#pragma once
#include <map>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "cudabench/gpu/workload.hpp"
#include "workloads/transformer_memory/model.hpp"
#include "workloads/transformer_memory/reference_backward.hpp"

namespace cudabench::transformer {

struct host_snapshot {
  std::map<std::string, std::vector<double>> weights;
  std::vector<double> src, tgt;
  std::vector<double> grad_out;  // G, for a model built with cfg.backward (empty otherwise)
};

host_snapshot snapshot(const model& m);

// Runs m.forward on `stream`, then compares with reference_forward(snapshot). The error of an
// element is |got - ref| / max(|ref|, 1): relative for large values, absolute below 1 (LayerNorm
// outputs are O(1), so this is the useful scale). Fails on any non-finite output.
validation_outcome compare_with_reference(const model& m, const host_snapshot& snap, cudaStream_t stream,
                                          double tolerance);

// Small shape for validation through the same code: d_model 128, 2 heads (head_dim 64, the
// default's), feed-forward 256, 2 + 2 layers, batch 2, src 150 (two query blocks, a partial
// key tile) and tgt 37 (a different length, so cross-attention indexing is exercised), run
// one sequence per chunk so the chunk loop is exercised too.
config validation_config(dtype type);
// fp32 (no TF32): 1e-4; fp16 storage with fp32 accumulation: 2e-2.
double validation_tolerance(dtype type);

// Every output element finite; max |output| reported in the message.
validation_outcome check_finite(const model& m);

// The ReLU branches m's last forward took (train mode): 1 where its saved ReLU output is > 0, for
// every feed-forward block, keyed as reference_backward.hpp's relu_branches.
relu_branches gpu_relu_branches(const model& m);

// After m.forward() and m.backward() (cfg.backward): every parameter's gradient against
// reference_backward(snapshot) run on the GPU's own ReLU branches (reference_backward.hpp says
// why). Runs nothing on the GPU (a test can corrupt a gradient first). The error of a tensor is
// max |got - ref| / max |ref| over that tensor: gradients have no O(1) scale as the outputs have,
// and within one tensor they share one. Fails too when a branch the GPU took differs from the
// double input's sign by more than relu_flip_margin() of its block's largest input: such an
// input was not within rounding of zero, so the forward's ReLU is wrong.
validation_outcome compare_gradients(const model& m, const host_snapshot& snap, double tolerance);
// fp32 vs double, see validate.cpp for the margin.
double gradient_tolerance();
// How far from zero, relative to its block's largest |input|, a ReLU input may be and still take
// the other branch on the GPU than in double. See validate.cpp.
double relu_flip_margin();
// Every gradient element finite, and not all zero (full-size model; no reference at that size).
validation_outcome check_gradients_finite(const model& m);

}  // namespace cudabench::transformer
