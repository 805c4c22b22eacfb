// How much of a Llama-2-7B decode step is kernel boundaries? An experiment, not part of cudabench.
//
// The decode step streams 13.2 GB of fp16 weights through 129 GEMVs (32 layers of qkv, o_proj,
// gate/up and down, then lm_head). cudabench runs each as its own kernel in a CUDA graph with
// programmatic dependent launch (kernels/llm_decode/gemv.cu, variant 0). This program streams the
// same 129 matrices, each GEMV reading the vector the previous one wrote, two ways:
//   graph       one kernel per matrix, 8 warps per block, one row per warp, 8 packs of 16 bytes per
//               lane in flight, the first batch issued before griddepcontrol.wait: the engine's way;
//   persistent  one cooperative kernel sized to the GPU; each warp walks rows with a stride and
//               issues its next row's first batch before it reduces the current one; a grid barrier
//               between matrices, each warp's first batch of the next matrix issued before it.
// The two run the same per-row arithmetic (bit-identical outputs, checked), so the difference in
// time per step is what 129 kernel boundaries cost against 129 grid barriers. No attention, norms
// or epilogues: this bounds what a persistent decode kernel could gain, it is not one.
//
//   cmake --build build --target decode_boundaries && build/experiments/decode_boundaries [rounds]
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cooperative_groups.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "experiments/step_timing.cuh"

namespace cg = cooperative_groups;

#define CHECK(call)                                                                               \
  do {                                                                                            \
    cudaError_t e_ = (call);                                                                      \
    if (e_ != cudaSuccess) {                                                                      \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                               \
    }                                                                                             \
  } while (0)

constexpr int kWarps = 8, kUnroll = 8, kThreads = kWarps * 32;

struct phase {
  const __half* w;  // [n][k]
  const __half* x;  // [k]
  __half* y;        // [n]
  int n, k;
};

__device__ __forceinline__ float dot8(const uint4& a, const uint4& b) {
  const __half2* ha = reinterpret_cast<const __half2*>(&a);
  const __half2* hb = reinterpret_cast<const __half2*>(&b);
  float acc = 0.0f;
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    const float2 fa = __half22float2(ha[i]), fb = __half22float2(hb[i]);
    acc = fmaf(fa.x, fb.x, acc);
    acc = fmaf(fa.y, fb.y, acc);
  }
  return acc;
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__device__ __forceinline__ void load_batch(uint4 (&w)[kUnroll], const uint4* row, int base, int packs, int lane) {
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    const int p = base + u * 32 + lane;
    w[u] = p < packs ? __ldcs(row + p) : uint4{};
  }
}

__device__ __forceinline__ void accumulate(float& acc, const uint4 (&w)[kUnroll], const uint4* xs, int base, int packs,
                                           int lane) {
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    const int p = base + u * 32 + lane;
    if (p < packs) acc += dot8(w[u], xs[p]);
  }
}

__device__ __forceinline__ void stage_x(uint4* xs, const phase& P) {
  const uint4* xv = reinterpret_cast<const uint4*>(P.x);
  for (int i = threadIdx.x; i < P.k / 8; i += blockDim.x) xs[i] = xv[i];
  __syncthreads();
}

// The engine's kernel shape (gemv.cu variant 0, no prologue, plain store).
__global__ void __launch_bounds__(kThreads) gemv_one(phase P) {
  extern __shared__ uint4 xs[];
  const int lane = threadIdx.x % 32, row = blockIdx.x * kWarps + threadIdx.x / 32;
  const int packs = P.k / 8;
  const uint4* wrow = reinterpret_cast<const uint4*>(P.w + static_cast<size_t>(row < P.n ? row : 0) * P.k);
  uint4 w[kUnroll];
  if (row < P.n) load_batch(w, wrow, 0, packs, lane);
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  asm volatile("griddepcontrol.wait;" ::: "memory");
  stage_x(xs, P);
  if (row >= P.n) return;
  float acc = 0.0f;
  for (int base = 0; base < packs; base += 32 * kUnroll) {
    if (base > 0) load_batch(w, wrow, base, packs, lane);
    accumulate(acc, w, xs, base, packs, lane);
  }
  acc = warp_sum(acc);
  if (lane == 0) P.y[row] = __float2half(acc);
}

__global__ void __launch_bounds__(kThreads) gemv_persistent(const phase* phases, int count) {
  extern __shared__ uint4 xs[];
  cg::grid_group grid = cg::this_grid();
  const int lane = threadIdx.x % 32;
  const int gw = blockIdx.x * kWarps + threadIdx.x / 32, stride = gridDim.x * kWarps;
  uint4 w[kUnroll];
  bool have = false;  // w holds batch 0 of this warp's first row of the current phase
  for (int p = 0; p < count; ++p) {
    const phase P = phases[p];
    const int packs = P.k / 8;
    if (!have && gw < P.n)
      load_batch(w, reinterpret_cast<const uint4*>(P.w + static_cast<size_t>(gw) * P.k), 0, packs, lane);
    have = gw < P.n;
    stage_x(xs, P);
    for (int row = gw; row < P.n;) {
      const uint4* wrow = reinterpret_cast<const uint4*>(P.w + static_cast<size_t>(row) * P.k);
      float acc = 0.0f;
      for (int base = 0; base < packs; base += 32 * kUnroll) {
        if (base > 0) load_batch(w, wrow, base, packs, lane);
        accumulate(acc, w, xs, base, packs, lane);
      }
      const int next = row + stride;
      if (next < P.n)
        load_batch(w, reinterpret_cast<const uint4*>(P.w + static_cast<size_t>(next) * P.k), 0, packs, lane);
      acc = warp_sum(acc);
      if (lane == 0) P.y[row] = __float2half(acc);
      row = next;
    }
    have = false;
    if (p + 1 < count) {
      const phase Q = phases[p + 1];
      if (gw < Q.n) {
        load_batch(w, reinterpret_cast<const uint4*>(Q.w + static_cast<size_t>(gw) * Q.k), 0, Q.k / 8, lane);
        have = true;
      }
    }
    grid.sync();
  }
}

__global__ void fill(__half* p, size_t n, unsigned seed, float scale) {
  for (size_t i = blockIdx.x * static_cast<size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<size_t>(gridDim.x) * blockDim.x) {
    unsigned h = static_cast<unsigned>(i) * 2654435761u ^ seed ^ static_cast<unsigned>(i >> 32) * 40503u;
    h ^= h >> 15;
    h *= 2246822519u;
    h ^= h >> 13;
    p[i] = __float2half(scale * (static_cast<float>(h & 0xffffff) / 8388608.0f - 1.0f));
  }
}

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 5;
  const int steps = 20;
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  // Llama-2-7B: per layer qkv 12288x4096, o 4096x4096, gate/up 22016x4096, down 4096x11008; lm_head 32000x4096.
  struct shape {
    int n, k;
  };
  std::vector<shape> shapes;
  for (int l = 0; l < 32; ++l) {
    shapes.push_back({12288, 4096});
    shapes.push_back({4096, 4096});
    shapes.push_back({22016, 4096});
    shapes.push_back({4096, 11008});
  }
  shapes.push_back({32000, 4096});
  size_t total = 0;
  for (const shape& s : shapes) total += static_cast<size_t>(s.n) * s.k;
  __half* weights;
  CHECK(cudaMalloc(&weights, total * sizeof(__half)));
  __half* act[2];
  for (__half*& a : act) CHECK(cudaMalloc(&a, 32768 * sizeof(__half)));
  std::vector<phase> phases;
  size_t off = 0;
  for (size_t i = 0; i < shapes.size(); ++i) {
    const shape& s = shapes[i];
    // Uniform in +-sqrt(3/k): each GEMV keeps the vector's variance, so 129 in a row stay normal numbers.
    fill<<<1024, 256>>>(weights + off, static_cast<size_t>(s.n) * s.k, 0x9e37u + static_cast<unsigned>(i),
                        std::sqrt(3.0f / s.k));
    phases.push_back({weights + off, act[i % 2], act[(i + 1) % 2], s.n, s.k});
    off += static_cast<size_t>(s.n) * s.k;
  }
  phase* d_phases;
  CHECK(cudaMalloc(&d_phases, phases.size() * sizeof(phase)));
  CHECK(cudaMemcpy(d_phases, phases.data(), phases.size() * sizeof(phase), cudaMemcpyHostToDevice));
  const size_t smem = 11008 * sizeof(__half);
  CHECK(cudaFuncSetAttribute(gemv_one, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  CHECK(cudaFuncSetAttribute(gemv_persistent, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
  const auto reset_input = [&](cudaStream_t s) {
    fill<<<32, 256, 0, s>>>(act[0], 32768, 0x1234u, 1.0f);
    CHECK(cudaGetLastError());
  };

  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  // The graph: one PDL launch per matrix.
  cudaGraph_t g;
  cudaGraphExec_t ge;
  CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
  for (size_t i = 0; i < phases.size(); ++i) {
    const phase& P = phases[i];
    cudaLaunchConfig_t c = {};
    c.gridDim = dim3((P.n + kWarps - 1) / kWarps);
    c.blockDim = dim3(kThreads);
    c.dynamicSmemBytes = static_cast<size_t>(P.k) * sizeof(__half);
    c.stream = s;
    cudaLaunchAttribute a[1];
    a[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    a[0].val.programmaticStreamSerializationAllowed = i > 0;
    c.attrs = a;
    c.numAttrs = 1;
    CHECK(cudaLaunchKernelEx(&c, gemv_one, P));
  }
  CHECK(cudaStreamEndCapture(s, &g));
  CHECK(cudaGraphInstantiate(&ge, g, 0));

  int occupancy = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&occupancy, gemv_persistent, kThreads, smem));
  std::printf("%s, %d SMs; %zu matrices, %.3f GB of weights per step; persistent kernel: up to %d blocks/SM\n",
              prop.name, prop.multiProcessorCount, phases.size(), total * 2 / 1e9, occupancy);
  const auto run_persistent = [&](int per_sm) {
    const phase* ph = d_phases;
    int count = static_cast<int>(phases.size());
    void* args[] = {&ph, &count};
    CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<void*>(gemv_persistent), dim3(prop.multiProcessorCount * per_sm),
                                      dim3(kThreads), args, smem, s));
  };
  const auto final_output = [&]() {
    std::vector<__half> out(32000);
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemcpy(out.data(), phases.back().y, out.size() * sizeof(__half), cudaMemcpyDeviceToHost));
    return out;
  };

  // Same numbers both ways.
  reset_input(s);
  CHECK(cudaGraphLaunch(ge, s));
  const std::vector<__half> ref = final_output();
  for (int per_sm = 1; per_sm <= occupancy; ++per_sm) {
    reset_input(s);
    run_persistent(per_sm);
    const std::vector<__half> got = final_output();
    const bool same = std::memcmp(ref.data(), got.data(), ref.size() * sizeof(__half)) == 0;
    int nonzero = 0;
    for (const __half& h : ref) nonzero += __half2float(h) != 0.0f;
    std::printf("persistent, %d blocks/SM: outputs %s the graph's (%d of 32000 logits nonzero)\n", per_sm,
                same ? "bit-identical to" : "DIFFER from", nonzero);
    if (!same) return 1;
  }

  // d2d copy bandwidth, read + write, as cudabench's memory_bandwidth measures it.
  const double copy_gbps = experiments::d2d_copy_gbps(s);
  const double floor_ms = total * 2.0 / (copy_gbps * 1e9) * 1e3;
  std::printf("d2d copy: %.0f GB/s; floor for the step's weights: %.3f ms\n", copy_gbps, floor_ms);

  // Interleaved rounds; the median of each way.
  std::vector<std::vector<float>> times(1 + occupancy);
  for (int r = 0; r < rounds; ++r) {
    times[0].push_back(experiments::per_call_ms(s, steps, [&] { CHECK(cudaGraphLaunch(ge, s)); }));
    for (int per_sm = 1; per_sm <= occupancy; ++per_sm)
      times[per_sm].push_back(experiments::per_call_ms(s, steps, [&] { run_persistent(per_sm); }));
  }
  for (int i = 0; i <= occupancy; ++i) {
    std::vector<float>& t = times[i];
    std::sort(t.begin(), t.end());
    const float med = t[t.size() / 2];
    char label[64];
    if (i == 0) std::snprintf(label, sizeof label, "graph, 129 PDL kernels");
    else std::snprintf(label, sizeof label, "persistent, %d blocks/SM", i);
    std::printf("%-26s %.4f ms/step [%.4f, %.4f]  %.0f GB/s  %.1f%% of copy bandwidth  %+.2f%% speed vs graph\n", label,
                med, t.front(), t.back(), total * 2.0 / (med * 1e-3) / 1e9, 100.0 * floor_ms / med,
                100.0 * (times[0][times[0].size() / 2] / med - 1.0));
  }
  return 0;
}
