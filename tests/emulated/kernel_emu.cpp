// The emulator's runtime (kernel_emu.hpp). One OS thread runs a launch: the blocks one after
// another, and a block's CUDA threads as fibers (ucontext) that a small scheduler switches between.
// A fiber runs until it returns or waits at a barrier (__syncthreads, or a warp's barrier behind
// __syncwarp and every shuffle); when every live thread of the block (or of the warp) waits, they
// all go on. Fibers, not OS threads: 1.6 million CUDA threads of the transformer test run in a few
// seconds instead of half a minute of futex traffic, and the order is deterministic.
#include "kernel_emu.hpp"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <ucontext.h>

namespace cuda_emu {

thread_local thread_coords here;

namespace {

constexpr std::size_t stack_bytes = 256 * 1024;  // a kernel's locals are registers' worth; sanitizers need more

enum class state { runnable, at_block_barrier, at_warp_barrier, done };

struct fiber {
  ucontext_t context{};
  char* stack = nullptr;  // from the thread's pool: kept across launches, never zeroed
  state st = state::done;
};

// Fiber stacks, allocated once per OS thread and reused by every later launch: a fresh 256 KB
// stack per CUDA thread per launch costs more in page faults than the kernels cost to run.
char* pooled_stack(std::size_t i) {
  thread_local std::vector<std::unique_ptr<char[]>> pool;
  while (pool.size() <= i) pool.emplace_back(new char[stack_bytes]);
  return pool[i].get();
}

struct block_run {
  ucontext_t scheduler{};
  std::vector<fiber> fibers;
  std::vector<std::array<std::uint64_t, 32>> slots;  // one per warp, for shuffles
  const std::function<void()>* body = nullptr;
  dim3 grid, block;
  uint3 block_index{};
  int current = -1;
};

thread_local block_run* run = nullptr;

uint3 thread_index(int t, const dim3& block) {
  const auto u = static_cast<unsigned>(t);
  return uint3{u % block.x, u / block.x % block.y, u / (block.x * block.y)};
}

void fiber_main() {
  block_run& r = *run;
  (*r.body)();
  r.fibers[static_cast<std::size_t>(r.current)].st = state::done;
  // uc_link returns to the scheduler
}

void wait_as(state s) {
  block_run& r = *run;
  fiber& f = r.fibers[static_cast<std::size_t>(r.current)];
  f.st = s;
  swapcontext(&f.context, &r.scheduler);
}

// The order fibers run in between barriers: ascending thread index, or descending when
// CUDA_EMU_ORDER=reverse (ctest runs every emulated test both ways). A kernel that reads what
// another thread writes without a barrier between works in one of the two orders only, so one of
// the two runs catches it.
bool reverse_order() {
  static const bool reverse = [] {
    const char* v = std::getenv("CUDA_EMU_ORDER");
    return v && std::string(v) == "reverse";
  }();
  return reverse;
}

// Runs every runnable fiber until it waits or returns, then releases the barriers whose every live
// participant waits; repeats until all have returned. A block stuck with waiters and nothing to
// release (threads of one warp at different barriers) is a bug in the kernel: said, and aborted.
void schedule(block_run& r) {
  const int n = static_cast<int>(r.fibers.size());
  for (;;) {
    bool ran = false;
    for (int i = 0; i < n; ++i) {
      const int t = reverse_order() ? n - 1 - i : i;
      fiber& f = r.fibers[static_cast<std::size_t>(t)];
      if (f.st != state::runnable) continue;
      r.current = t;
      here = thread_coords{thread_index(t, r.block), r.block_index, r.block, r.grid};
      swapcontext(&r.scheduler, &f.context);
      ran = true;
    }
    int live = 0, at_block = 0;
    for (const auto& f : r.fibers) {
      live += f.st != state::done;
      at_block += f.st == state::at_block_barrier;
    }
    if (live == 0) return;
    bool released = false;
    if (at_block == live) {
      for (auto& f : r.fibers)
        if (f.st == state::at_block_barrier) f.st = state::runnable;
      released = true;
    }
    for (int w = 0; w * 32 < n; ++w) {
      int warp_live = 0, warp_waiting = 0;
      for (int t = w * 32; t < std::min(n, w * 32 + 32); ++t) {
        warp_live += r.fibers[static_cast<std::size_t>(t)].st != state::done;
        warp_waiting += r.fibers[static_cast<std::size_t>(t)].st == state::at_warp_barrier;
      }
      if (warp_waiting > 0 && warp_waiting == warp_live) {
        for (int t = w * 32; t < std::min(n, w * 32 + 32); ++t)
          if (r.fibers[static_cast<std::size_t>(t)].st == state::at_warp_barrier)
            r.fibers[static_cast<std::size_t>(t)].st = state::runnable;
        released = true;
      }
    }
    if (!released && !ran) {
      std::fprintf(stderr,
                   "kernel emulator: block (%u,%u,%u) deadlocked: its live threads wait at different barriers\n",
                   r.block_index.x, r.block_index.y, r.block_index.z);
      std::abort();
    }
  }
}

}  // namespace

int lane() { return run->current % 32; }

void sync_block() { wait_as(state::at_block_barrier); }

void sync_warp() { wait_as(state::at_warp_barrier); }

std::uint64_t exchange(std::uint64_t value, int src_lane) {
  auto& slots = run->slots[static_cast<std::size_t>(run->current / 32)];
  slots[static_cast<std::size_t>(lane())] = value;
  sync_warp();
  const std::uint64_t out = slots[static_cast<std::size_t>(src_lane & 31)];
  sync_warp();  // nobody overwrites a slot before every lane has read
  return out;
}

namespace {
thread_local void* dynamic_smem_base = nullptr;
}  // namespace

void* dynamic_shared() { return dynamic_smem_base; }

void run_grid(const dim3& grid, const dim3& block, const std::function<void()>& body, std::size_t dynamic_smem) {
  const int n = static_cast<int>(block.x * block.y * block.z);
  const unsigned blocks = grid.x * grid.y * grid.z;
  if (n <= 0 || blocks == 0) return;
  const std::size_t smem_bytes = (dynamic_smem + 127) / 128 * 128;
  std::unique_ptr<void, void (*)(void*)> smem(smem_bytes ? std::aligned_alloc(128, smem_bytes) : nullptr, std::free);
  dynamic_smem_base = smem.get();
  block_run r;
  r.fibers.resize(static_cast<std::size_t>(n));
  for (std::size_t t = 0; t < r.fibers.size(); ++t) r.fibers[t].stack = pooled_stack(t);
  r.slots.resize(static_cast<std::size_t>((n + 31) / 32));
  r.body = &body;
  r.grid = grid;
  r.block = block;
  run = &r;
  for (unsigned b = 0; b < blocks; ++b) {
    r.block_index = uint3{b % grid.x, b / grid.x % grid.y, b / (grid.x * grid.y)};
    if (smem) std::memset(smem.get(), 0xcd, smem_bytes);
    for (auto& f : r.fibers) {
      getcontext(&f.context);
      f.context.uc_stack.ss_sp = f.stack;
      f.context.uc_stack.ss_size = stack_bytes;
      f.context.uc_link = &r.scheduler;
      makecontext(&f.context, fiber_main, 0);
      f.st = state::runnable;
    }
    schedule(r);
  }
  run = nullptr;
  dynamic_smem_base = nullptr;
}

}  // namespace cuda_emu
