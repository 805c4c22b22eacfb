// Greedy sampling on the device: the index of the largest logit (the first one on ties, as
// torch.argmax; NaN counts as largest, as torch does) becomes the next token.
//   p = (prefill_last >= 0) ? prefill_last : *pos;  tokens[p + 1] = argmax(logits);  *pos = p + 1
// so the next decode step's embedding reads it without the host. Bound: vocab x 4 bytes
// (128 KB for a 32000 vocabulary): one block, latency.
#pragma once
#include <cstdint>

#include <cuda_runtime.h>

namespace cudabench::kernels::llm_decode {

// `capacity`: length of `tokens`; a step that would write past it does nothing.
void argmax_next_token(const float* logits, int vocab, std::int32_t* tokens, int capacity, int* pos, int prefill_last,
                       cudaStream_t stream);

}  // namespace cudabench::kernels::llm_decode
