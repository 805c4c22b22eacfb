// See attention_decode.cuh.
// Block (kv head, split), 128 threads, in phases:
//  0. before waiting for the QKV projection (pdl_wait): read the position and issue the chunk's
//     first keys' and values' loads (16 each at head_dim 128) into registers. None of that is
//     written by this step's earlier kernels -- the position and every cached row come from
//     earlier graph replays, which have finished -- so that round trip overlaps the projection's
//     tail instead of following it. 16 keys is the split size the tuner picks at short contexts,
//     and more registers held across the wait cost occupancy. The new position's row (phase 1)
//     loads after. Measured on the H200 (Llama-2-7B fp16, two processes each, one machine
//     start): 128 -> 256 decode 257.4 vs 256.0 tok/s, 2048 -> 2304 241.7 vs 238.7 tok/s. Staging
//     the whole chunk in shared memory with cp.async instead gained as much at 128 -> 256 but
//     lost 7% at 2048 -> 2304;
//  1. rotate the group's queries into shared memory (fp32, pre-scaled); the block holding the new
//     position appends its rotated K and its V to the cache (rope_math.cuh: the prefill's rule);
//  2. scores: 8 lanes per key, each lane a strided share of the key's packs (16 bytes when
//     head_dim % 8 == 0, else 4), 16 keys per step and several steps of loads in flight;
//  3. softmax statistics, a warp per query head; probabilities replace the scores in place;
//  4. P·V: thread (key group kg, pack pk) sums its pack of V over keys kg, kg + KG, ... for a
//     batch of the group's heads at once, 8 loads in flight; key groups are summed in shared memory;
//  5. a single split writes the output; otherwise the partial and its (max, sum) go to the
//     workspace and the last block of the KV head (its counter) merges every split.
// The merge reads other blocks' partials through L2 (__ldcg) after a fence: the classic
// threadfence-reduction pattern, no second kernel.
#include "kernels/llm_decode/attention_decode.cuh"

#include <cassert>
#include <cmath>
#include <cstdint>

#include "cudabench/gpu/cuda_check.hpp"
#include "kernels/common/reduce.cuh"
#include "kernels/common/shared_memory.cuh"
#include "kernels/llm_decode/device_utils.cuh"
#include "kernels/llm_decode/launch.cuh"
#include "kernels/llm_decode/rope_math.cuh"

namespace cudabench::kernels::llm_decode {
namespace {

constexpr int kThreads = 128;
constexpr int kWarps = kThreads / 32;
constexpr int kLanesPerKey = 8;
constexpr int kKeySlots = kThreads / kLanesPerKey;  // keys scored per step
constexpr int kValueUnroll = 8;                     // V loads in flight per thread
constexpr int kMaxHeadDim = 256;
// The kernel is instantiated per (pack, packs per lane, head batch): registers are sized for the
// shape at hand (Llama-2-7B: 2 packs per lane, 1 head) so more blocks fit per SM; a version sized
// for head_dim 256 and 8-head groups held ~150 registers and ran the 2048-position row in two waves.

// Shared memory, in floats: the queries [group][hd], scores [group][chunk], P·V key-group sums
// [key groups][min(group, 8)][hd], merge weights [group][splits], (max, sum) per head.
struct smem_layout {
  int qs, sc, red, wts, mls, total;
};

__host__ __device__ inline smem_layout layout_of(const attn_decode_shape& s, int packs, int head_batch) {
  const int group = s.num_heads / s.num_kv_heads;
  const int key_groups = packs >= kThreads ? 1 : kThreads / packs;
  const int batch = group < head_batch ? group : head_batch;
  smem_layout l;
  l.qs = 0;
  l.sc = l.qs + group * s.head_dim;
  l.red = l.sc + group * s.chunk;
  l.wts = l.red + key_groups * batch * s.head_dim;
  l.mls = l.wts + group * s.max_splits();
  l.total = l.mls + 2 * group;
  return l;
}

// Dot product of a pack of 16-bit elements with fp32 values (8-byte aligned), fp32 accumulation.
template <class T, class L>
__device__ __forceinline__ float dot_pack_f32(const L& a, const float* q) {
  constexpr int words = sizeof(L) / 4;
  std::uint32_t w[words];
  memcpy(w, &a, sizeof(L));
  const float2* q2 = reinterpret_cast<const float2*>(q);
  float acc = 0.0f;
#pragma unroll
  for (int i = 0; i < words; ++i) {
    const float2 f = pair_to_float2(w[i], T{}), qv = q2[i];
    acc = fmaf(f.x, qv.x, acc);
    acc = fmaf(f.y, qv.y, acc);
  }
  return acc;
}

template <class T, class L>
__device__ __forceinline__ void unpack(const L& a, float* out) {
  constexpr int words = sizeof(L) / 4;
  std::uint32_t w[words];
  memcpy(w, &a, sizeof(L));
#pragma unroll
  for (int i = 0; i < words; ++i) {
    const float2 f = pair_to_float2(w[i], T{});
    out[2 * i] = f.x;
    out[2 * i + 1] = f.y;
  }
}

// kMaxPacksPerLane: head_dim / (pack elements x 8 lanes), rounded up; kHeadBatch: query heads
// whose P·V is accumulated in one pass over V.
template <class T, class L, int kMaxPacksPerLane, int kHeadBatch>
__global__ void __launch_bounds__(kThreads)
    attn_decode_kernel(const T* qkv, const std::uint32_t* table, T* k_cache, T* v_cache, const int* pos,
                       attn_decode_shape s, float* partial_out, float* partial_ml, unsigned* counters, T* out) {
  constexpr int kPer = static_cast<int>(sizeof(L) / sizeof(T));
  constexpr int kKeyUnroll = kMaxPacksPerLane >= 8 ? 1 : 8 / kMaxPacksPerLane;  // steps of loads in flight
  extern __shared__ __align__(16) float smem[];
  __shared__ bool merge_here;
  const int group = s.num_heads / s.num_kv_heads, hd = s.head_dim, splits = s.max_splits();
  const int packs = hd / kPer;
  const smem_layout lay = layout_of(s, packs, kHeadBatch);
  float* qs = smem + lay.qs;
  float* sc = smem + lay.sc;
  float* red = smem + lay.red;
  float* wts = smem + lay.wts;
  float* mls = smem + lay.mls;
  const int kvh = blockIdx.x, split = blockIdx.y, tid = threadIdx.x;
  const int lane = tid % 32, warp = tid / 32;
  pdl_trigger();

  // 0. What earlier replays wrote, read before the wait (see the top of this file).
  const int p = *pos;
  const int seq = p + 1, used = (seq + s.chunk - 1) / s.chunk, start = split * s.chunk;
  if (split >= used) return;  // whole block, before any barrier
  const int n = min(s.chunk, seq - start);
  const int cached = min(n, p - start);  // keys already in the cache: the last split's key p is appended below
  const int head0 = kvh * group, half = hd / 2;
  const std::uint32_t* factors = table + static_cast<std::size_t>(p) * half;
  const int slot = tid / kLanesPerKey, sub = tid % kLanesPerKey;
  const L* kb = reinterpret_cast<const L*>(k_cache + (static_cast<std::size_t>(kvh) * s.max_len + start) * hd);
  L kr[kKeyUnroll][kMaxPacksPerLane];
  // Keys t0 + u * kKeySlots + slot for u0 <= u < u1, with t < limit (the rest zero).
  auto load_keys = [&](int t0, int limit, int u0, int u1) {
#pragma unroll
    for (int u = 0; u < kKeyUnroll; ++u) {
      if (u < u0 || u >= u1) continue;
      const int t = t0 + u * kKeySlots + slot;
#pragma unroll
      for (int j = 0; j < kMaxPacksPerLane; ++j) {
        const int pk = sub + j * kLanesPerKey;
        kr[u][j] = (t < limit && pk < packs) ? kb[static_cast<std::size_t>(t) * packs + pk] : L{};
      }
    }
  };
  const int key_groups = packs >= kThreads ? 1 : kThreads / packs;
  const int kg = tid / packs, pk = tid % packs;
  const L* vb = reinterpret_cast<const L*>(v_cache + (static_cast<std::size_t>(kvh) * s.max_len + start) * hd);
  L vr[kValueUnroll];
  // Values t0 + u * key_groups for u0 <= u < u1, with t < limit.
  auto load_values = [&](int t0, int limit, int u0, int u1) {
#pragma unroll
    for (int u = 0; u < kValueUnroll; ++u) {
      if (u < u0 || u >= u1) continue;
      const int t = t0 + u * key_groups;
      vr[u] = (kg < key_groups && t < limit) ? vb[static_cast<std::size_t>(t) * packs + pk] : L{};
    }
  };
  // The early batch is sized for the split size short contexts tune to (16 keys: kKeySlots keys and,
  // at head_dim 128, two value steps) so few registers stay live across the wait; the rest of
  // the first batch is loaded after it.
  constexpr int kEarlyKeyUnits = 1, kEarlyValueUnits = kValueUnroll < 2 ? kValueUnroll : 2;
  load_keys(0, cached, 0, kEarlyKeyUnits);
  load_values(kg, cached, 0, kEarlyValueUnits);
  pdl_wait();  // the QKV projection's row is complete and visible

  // 1. Queries (rotated, rounded to T, then scaled in fp32) and, in the last split, the append.
  for (int idx = tid; idx < group * half; idx += kThreads) {
    const int g = idx / half, i = idx % half;
    const T* qh = qkv + static_cast<std::size_t>(head0 + g) * hd;
    T o1, o2;
    rotate_pair<T>(to_float(qh[i]), to_float(qh[i + half]), factors[i], o1, o2);
    qs[g * hd + i] = to_float(o1) * s.scale;
    qs[g * hd + i + half] = to_float(o2) * s.scale;
  }
  if (split == used - 1) {
    const T* kh = qkv + static_cast<std::size_t>(s.num_heads + kvh) * hd;
    const T* vh = qkv + static_cast<std::size_t>(s.num_heads + s.num_kv_heads + kvh) * hd;
    const std::size_t row = (static_cast<std::size_t>(kvh) * s.max_len + p) * hd;
    for (int i = tid; i < half; i += kThreads) {
      T o1, o2;
      rotate_pair<T>(to_float(kh[i]), to_float(kh[i + half]), factors[i], o1, o2);
      k_cache[row + i] = o1;
      k_cache[row + i + half] = o2;
    }
    for (int d = tid; d < hd; d += kThreads) v_cache[row + d] = vh[d];
  }
  __syncthreads();  // queries complete; the appended row visible to every thread of the block

  // The rest of the first key batch (its values' rest is loaded in phase 4, not to hold registers
  // through the scores), and the appended key and value where they fall in the early part.
  load_keys(0, n, kEarlyKeyUnits, kKeyUnroll);
  if (cached < n) {
#pragma unroll
    for (int u = 0; u < kEarlyKeyUnits; ++u)
      if (u * kKeySlots + slot == cached)
#pragma unroll
        for (int j = 0; j < kMaxPacksPerLane; ++j) {
          const int pk2 = sub + j * kLanesPerKey;
          if (pk2 < packs) kr[u][j] = kb[static_cast<std::size_t>(cached) * packs + pk2];
        }
#pragma unroll
    for (int u = 0; u < kEarlyValueUnits; ++u)
      if (kg < key_groups && kg + u * key_groups == cached) vr[u] = vb[static_cast<std::size_t>(cached) * packs + pk];
  }

  // 2. Scores.
  for (int t0 = 0; t0 < n; t0 += kKeySlots * kKeyUnroll) {
    if (t0 > 0) load_keys(t0, n, 0, kKeyUnroll);
    for (int g = 0; g < group; ++g) {
      const float* qg = qs + g * hd;
#pragma unroll
      for (int u = 0; u < kKeyUnroll; ++u) {
        float acc = 0.0f;
#pragma unroll
        for (int j = 0; j < kMaxPacksPerLane; ++j) {
          const int pk = sub + j * kLanesPerKey;
          if (pk < packs) acc += dot_pack_f32<T>(kr[u][j], qg + pk * kPer);
        }
        // The key's 8 lanes are aligned in the warp: xor 1, 2, 4 stays inside them.
        acc += __shfl_xor_sync(kFullWarp, acc, 1);
        acc += __shfl_xor_sync(kFullWarp, acc, 2);
        acc += __shfl_xor_sync(kFullWarp, acc, 4);
        const int t = t0 + u * kKeySlots + slot;
        if (sub == 0 && t < n) sc[g * s.chunk + t] = acc;
      }
    }
  }
  __syncthreads();

  // 3. Softmax statistics of the chunk, per query head.
  for (int g = warp; g < group; g += kWarps) {
    float* sg = sc + g * s.chunk;
    float m = -INFINITY;
    for (int t = lane; t < n; t += 32) m = fmaxf(m, sg[t]);
    m = warp_max(m);  // finite: the chunk holds at least one key
    float l = 0.0f;
    for (int t = lane; t < n; t += 32) {
      const float e = expf(sg[t] - m);
      sg[t] = e;
      l += e;
    }
    l = warp_sum(l);
    if (lane == 0) {
      mls[2 * g] = m;
      mls[2 * g + 1] = l;
      if (used > 1) {
        float* ml = partial_ml + (static_cast<std::size_t>(head0 + g) * splits + split) * 2;
        ml[0] = m;
        ml[1] = l;
      }
    }
  }
  __syncthreads();

  // 4. P·V, up to kHeadBatch heads per pass over V (the first batch of the first pass preloaded).
  const int batch = group < kHeadBatch ? group : kHeadBatch;
  for (int g0 = 0; g0 < group; g0 += kHeadBatch) {
    const int gb = min(kHeadBatch, group - g0);
    if (kg < key_groups) {
      float acc[kHeadBatch][kPer];
#pragma unroll
      for (int g = 0; g < kHeadBatch; ++g)
#pragma unroll
        for (int e = 0; e < kPer; ++e) acc[g][e] = 0.0f;
      for (int t0 = kg; t0 < n; t0 += key_groups * kValueUnroll) {
        if (g0 > 0 || t0 > kg) load_values(t0, n, 0, kValueUnroll);
        else load_values(t0, n, kEarlyValueUnits, kValueUnroll);
#pragma unroll
        for (int u = 0; u < kValueUnroll; ++u) {
          const int t = t0 + u * key_groups;
          if (t < n) {
            float v[kPer];
            unpack<T>(vr[u], v);
#pragma unroll
            for (int g = 0; g < kHeadBatch; ++g) {
              if (g < gb) {
                const float pr = sc[(g0 + g) * s.chunk + t];
#pragma unroll
                for (int e = 0; e < kPer; ++e) acc[g][e] = fmaf(pr, v[e], acc[g][e]);
              }
            }
          }
        }
      }
#pragma unroll
      for (int g = 0; g < kHeadBatch; ++g)
        if (g < gb)
#pragma unroll
          for (int e = 0; e < kPer; ++e) red[(kg * batch + g) * hd + pk * kPer + e] = acc[g][e];
    }
    __syncthreads();
    for (int i = tid; i < gb * hd; i += kThreads) {
      const int gi = i / hd, d = i % hd, g = g0 + gi;
      float v = 0.0f;
      for (int k2 = 0; k2 < key_groups; ++k2) v += red[(k2 * batch + gi) * hd + d];
      if (used == 1) {
        out[static_cast<std::size_t>(head0 + g) * hd + d] = from_float<T>(v / mls[2 * g + 1]);
      } else {
        partial_out[(static_cast<std::size_t>(head0 + g) * splits + split) * hd + d] = v;
      }
    }
    __syncthreads();  // red is rewritten by the next batch
  }
  if (used == 1) return;

  // 5. The last block of this KV head to get here merges every split.
  __threadfence();  // this block's partials are visible device-wide before it is counted
  __syncthreads();
  if (tid == 0) merge_here = atomicAdd(&counters[kvh], 1u) == static_cast<unsigned>(used - 1);
  __syncthreads();
  if (!merge_here) return;
  __threadfence();
  for (int g = warp; g < group; g += kWarps) {
    const float* ml = partial_ml + static_cast<std::size_t>(head0 + g) * splits * 2;
    float m = -INFINITY;
    for (int i = lane; i < used; i += 32) m = fmaxf(m, __ldcg(ml + 2 * i));
    m = warp_max(m);
    float l = 0.0f;
    for (int i = lane; i < used; i += 32) {
      const float w = expf(__ldcg(ml + 2 * i) - m);
      wts[g * splits + i] = w;
      l += __ldcg(ml + 2 * i + 1) * w;
    }
    l = warp_sum(l);
    if (lane == 0) mls[2 * g + 1] = l;
  }
  __syncthreads();
  for (int i = tid; i < group * hd; i += kThreads) {
    const int g = i / hd, d = i % hd;
    const float* po = partial_out + static_cast<std::size_t>(head0 + g) * splits * hd + d;
    float acc = 0.0f;
    for (int j = 0; j < used; ++j) acc = fmaf(__ldcg(po + static_cast<std::size_t>(j) * hd), wts[g * splits + j], acc);
    out[static_cast<std::size_t>(head0 + g) * hd + d] = from_float<T>(acc / mls[2 * g + 1]);
  }
  if (tid == 0) counters[kvh] = 0u;  // every used block has counted: ready for the next launch
}

bool wide_packs(const attn_decode_shape& s) { return s.head_dim % 8 == 0; }

int head_batch(const attn_decode_shape& s) {
  const int group = s.num_heads / s.num_kv_heads;
  return group == 1 ? 1 : group <= 2 ? 2 : group <= 4 ? 4 : 8;
}

template <class T, class L, int kMaxPacksPerLane, int kHeadBatch>
void launch_shape(const T* qkv, const T* table, T* k_cache, T* v_cache, const int* pos, const attn_decode_shape& s,
                  float* partial_out, float* partial_ml, unsigned* counters, T* out, cudaStream_t stream) {
  const auto kernel = attn_decode_kernel<T, L, kMaxPacksPerLane, kHeadBatch>;
  const int packs = s.head_dim / static_cast<int>(sizeof(L) / sizeof(T));
  const std::size_t smem = static_cast<std::size_t>(layout_of(s, packs, kHeadBatch).total) * sizeof(float);
  opt_in_shared_memory(kernel, smem);
  launch(kernel, dim3(s.num_kv_heads, s.max_splits()), dim3(kThreads), smem, stream, qkv,
         reinterpret_cast<const std::uint32_t*>(table), k_cache, v_cache, pos, s, partial_out, partial_ml, counters,
         out);
}

// 16-byte packs: registers for head_dim <= 128 or <= 256, and the group's head batch.
template <class T, int kMaxPacksPerLane>
void launch_wide(const T* qkv, const T* table, T* k_cache, T* v_cache, const int* pos, const attn_decode_shape& s,
                 float* partial_out, float* partial_ml, unsigned* counters, T* out, cudaStream_t stream) {
  switch (head_batch(s)) {
    case 1:
      launch_shape<T, uint4, kMaxPacksPerLane, 1>(qkv, table, k_cache, v_cache, pos, s, partial_out, partial_ml,
                                                  counters, out, stream);
      break;
    case 2:
      launch_shape<T, uint4, kMaxPacksPerLane, 2>(qkv, table, k_cache, v_cache, pos, s, partial_out, partial_ml,
                                                  counters, out, stream);
      break;
    case 4:
      launch_shape<T, uint4, kMaxPacksPerLane, 4>(qkv, table, k_cache, v_cache, pos, s, partial_out, partial_ml,
                                                  counters, out, stream);
      break;
    default:
      launch_shape<T, uint4, kMaxPacksPerLane, 8>(qkv, table, k_cache, v_cache, pos, s, partial_out, partial_ml,
                                                  counters, out, stream);
      break;
  }
}

}  // namespace

std::size_t attn_decode_smem_bytes(const attn_decode_shape& s) {
  if (!wide_packs(s)) return static_cast<std::size_t>(layout_of(s, s.head_dim / 2, 8).total) * sizeof(float);
  return static_cast<std::size_t>(layout_of(s, s.head_dim / 8, head_batch(s)).total) * sizeof(float);
}

template <class T>
void attention_decode(const T* qkv, const T* table, T* k_cache, T* v_cache, const int* pos, const attn_decode_shape& s,
                      float* partial_out, float* partial_ml, unsigned* counters, T* out, cudaStream_t stream) {
  assert(qkv && table && k_cache && v_cache && pos && partial_out && partial_ml && counters && out);
  assert(s.num_kv_heads > 0 && s.num_heads % s.num_kv_heads == 0);
  assert(s.head_dim > 0 && s.head_dim % 2 == 0 && s.head_dim <= kMaxHeadDim && s.chunk > 0 && s.max_len > 0);
  assert(reinterpret_cast<std::uintptr_t>(table) % 4 == 0);
  if (wide_packs(s) && aligned_to(qkv, 16) && aligned_to(k_cache, 16) && aligned_to(v_cache, 16)) {
    if (s.head_dim <= 128)
      launch_wide<T, 2>(qkv, table, k_cache, v_cache, pos, s, partial_out, partial_ml, counters, out, stream);
    else launch_wide<T, 4>(qkv, table, k_cache, v_cache, pos, s, partial_out, partial_ml, counters, out, stream);
  } else {  // 4-byte packs, sized for any head_dim <= 256 and 8-head batches: correct everywhere, tuned nowhere
    launch_shape<T, unsigned, kMaxHeadDim / 2 / kLanesPerKey, 8>(qkv, table, k_cache, v_cache, pos, s, partial_out,
                                                                 partial_ml, counters, out, stream);
  }
}

template void attention_decode<__half>(const __half*, const __half*, __half*, __half*, const int*,
                                       const attn_decode_shape&, float*, float*, unsigned*, __half*, cudaStream_t);
template void attention_decode<__nv_bfloat16>(const __nv_bfloat16*, const __nv_bfloat16*, __nv_bfloat16*,
                                              __nv_bfloat16*, const int*, const attn_decode_shape&, float*, float*,
                                              unsigned*, __nv_bfloat16*, cudaStream_t);

}  // namespace cudabench::kernels::llm_decode
