// The emulator's probe kernels (emu_probe_kernels.cu); the comments there say what each checks.
#pragma once
#include <cuda_runtime.h>

namespace cudabench::emu_probe {

void coordinates(int* out, dim3 grid, dim3 block);      // out[block * threads + thread] = encoded coordinates
void reverse(const float* in, float* out, int blocks);  // each 256-element slice reversed
void warp_sums(const float* in, float* sums, float* maxima, int blocks);  // 96-thread blocks: 3 warps each
void ragged_block_sum(const float* in, int n, float* out);                // sums of 128-element slices, the last short
void atomic_count(float* total, int blocks, int threads);                 // adds 1 per thread
void missing_barrier(const int* in, int* out);  // 64 threads, out[t] = in[t + 1 mod 64], but racy
void dynamic_reverse(const float* in, float* out, int n, int blocks);  // n-element slices reversed, dynamic smem

}  // namespace cudabench::emu_probe
