// run_workload(): one workload through its phases, with the harness's rules (docs/design.md "Timing"):
// one stream; warm-up first; a repetition times a batch of back-to-back runs lasting at least
// min_time_ms with CUDA events and the sample is elapsed / runs; runs shorter than
// graph_timing_below_ms are replayed from a captured graph where the workload allows it, and
// their one-by-one launch time is kept as the `launch_ms` metric; clocks and throttle reasons read
// after each repetition, and NVML's energy counter before and after it, for the `cycles` and
// `energy_j` metrics (energy_metrics.hpp), and the SMs' own cycle counters around it for
// `sm_cycles` (sm_clock_stamps.hpp); peak memory from the tracker and cudaMemGetInfo deltas;
// every failure caught here, once, and turned into a status.
#include <algorithm>
#include <cmath>
#include <memory>

#include <cuda_profiler_api.h>
#include <fmt/format.h>

#include "cudabench/device_memory.hpp"
#include "cudabench/energy_metrics.hpp"
#include "cudabench/gpu/cuda_check.hpp"
#include "cudabench/gpu/cuda_handles.hpp"
#include "cudabench/gpu/graph_batch.hpp"
#include "cudabench/gpu/runner.hpp"
#include "cudabench/gpu/sm_clock_probe.hpp"
#include "cudabench/gpu/timing.hpp"
#include "cudabench/nvml.hpp"

namespace cudabench {
namespace {

constexpr long kMaxRunsPerRepetition = 1'000'000;

std::uint64_t device_used_bytes() {
  std::size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) return 0;
  return total_b - free_b;
}

// Tracks the workload's peak footprint: its own allocations (exact, from the tracker) and
// everything else it caused (library workspaces, graphs), seen as cudaMemGetInfo deltas at the
// phase boundaries.
class footprint {
 public:
  footprint() : used0_(device_used_bytes()), tracked0_(memory_tracker::current()) { memory_tracker::reset_peak(); }
  void sample() {
    const std::uint64_t used = device_used_bytes();
    if (used > used0_) peak_seen_ = std::max(peak_seen_, used - used0_);
  }
  std::uint64_t peak() const {
    const std::uint64_t tracked = memory_tracker::peak() - std::min(memory_tracker::peak(), tracked0_);
    return std::max(tracked, peak_seen_);
  }

 private:
  std::uint64_t used0_, tracked0_, peak_seen_ = 0;
};

// After a sticky error (illegal address, launch failure) the context is unusable: reset it so the
// next workload starts clean.
void recover_device(int device) {
  const cudaError_t err = cudaDeviceSynchronize();
  if (err != cudaSuccess) {
    (void)cudaGetLastError();
    if (cudaDeviceReset() == cudaSuccess) cudaSetDevice(device);
  }
}

struct clock_reader {
  explicit clock_reader(int device) : nvml(bus_id(device)) {}
  static std::string bus_id(int device) {
    char bus[32] = {};
    cudaDeviceGetPCIBusId(bus, sizeof(bus), device);
    return bus;
  }
  // Returns this repetition's SM clock, which its `cycles` sample needs (none when unreadable).
  std::optional<double> after_repetition(clock_record& c) {
    if (!nvml.available()) return std::nullopt;
    std::optional<double> clock;
    if (auto mhz = nvml.sm_clock_mhz()) {
      c.sm_mhz.push_back(*mhz);
      clock = *mhz;
    }
    if (auto w = nvml.power_usage_w()) c.power_w.push_back(*w);
    if (auto reasons = nvml.throttle_reasons())
      for (const auto& r : *reasons) {
        if (std::find(c.throttle_reasons.begin(), c.throttle_reasons.end(), r) == c.throttle_reasons.end())
          c.throttle_reasons.push_back(r);
        if (is_slowdown_reason(r)) c.throttled = true;
      }
    return clock;
  }
  std::optional<std::uint64_t> energy_mj() const {
    return nvml.available() ? nvml.total_energy_mj() : std::optional<std::uint64_t>();
  }
  // A repetition whose SM clock fell more than 10% below the workload's best is flagged too.
  static void flag_drops(clock_record& c) {
    if (c.sm_mhz.empty()) return;
    const double best = *std::max_element(c.sm_mhz.begin(), c.sm_mhz.end());
    for (double mhz : c.sm_mhz)
      if (mhz < 0.9 * best) c.throttled = true;
  }
  nvml_device nvml;
};

// cudaProfilerStart on construction, cudaProfilerStop once (stop() or the destructor, so an
// exception inside the range still closes it). Their return codes are ignored: a profiler range
// is a courtesy to an attached tool, never a reason for a workload to fail.
class profiler_range {
 public:
  profiler_range() { (void)cudaProfilerStart(); }
  ~profiler_range() { stop(); }
  profiler_range(const profiler_range&) = delete;
  profiler_range& operator=(const profiler_range&) = delete;
  void stop() {
    if (open_) (void)cudaProfilerStop();
    open_ = false;
  }

 private:
  bool open_ = true;
};

// A graph of back-to-back runs, replayed as one launch (graph_batch.hpp says why).
graph_batch capture_batch(workload& w, cudaStream_t stream, double one_run_ms) {
  return capture_graph_batch(stream, calls_per_replay(one_run_ms), [&w](cudaStream_t s) { w.run(s); });
}

}  // namespace

workload_result run_workload(const workload_spec& spec, const workload_factory* make, const runner_options& opts,
                             const std::atomic<bool>& stop) {
  workload_result r;
  r.id = spec.id;
  r.kind = spec.kind;
  r.params = spec.params;
  if (!make || !*make) {
    r.state = status::error;
    r.message = fmt::format("unknown kind \"{}\"", spec.kind);
    return r;
  }

  // Built before the footprint is watched: its few KiB are the harness's, not the workload's. A
  // probe that cannot be built, or whose stamps fail, only costs the `sm_cycles` metric: it is
  // dropped and the workload goes on (an error that sticks to the context fails the workload's own
  // next call anyway).
  std::unique_ptr<sm_clock_probe> sm_clock;
  auto with_probe = [&sm_clock](auto&& step) {
    if (!sm_clock) return;
    try {
      step(*sm_clock);
    } catch (const std::exception&) {
      sm_clock.reset();
      (void)cudaGetLastError();
    }
  };
  try {
    sm_clock = std::make_unique<sm_clock_probe>(opts.device);
  } catch (const std::exception&) {
    (void)cudaGetLastError();
  }
  footprint mem;
  try {
    cudaDeviceProp props{};
    CUDABENCH_CHECK_CUDA(cudaGetDeviceProperties(&props, opts.device));
    cuda_stream stream;
    run_context ctx;
    ctx.stream = stream.get();
    ctx.device = opts.device;
    ctx.props = &props;
    clock_reader clocks(opts.device);
    std::unique_ptr<l2_flusher> flusher;
    if (opts.cold) flusher = std::make_unique<l2_flusher>(static_cast<std::size_t>(props.l2CacheSize));

    if (auto it = opts.tuning_from.find(spec.id); it != opts.tuning_from.end()) ctx.forced_tuning = &it->second;
    std::unique_ptr<workload> w = (*make)(spec);
    w->setup(ctx);
    r.tuning = w->tuning();
    CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(ctx.stream));
    mem.sample();

    const validation_outcome v = w->verify(ctx);
    CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(ctx.stream));
    mem.sample();
    r.validation = validation_record{v.passed, v.max_rel_error, v.tolerance};
    if (!v.passed) {
      r.state = status::failed_validation;
      r.message = v.message.empty() ? "output differs from the reference" : v.message;
      w->teardown();
      r.peak_memory_bytes = mem.peak();
      return r;
    }

    // Warm-up: module load, plans, caches stay out of the numbers. Then, until warmup_ms of GPU
    // time have passed in all, batches of runs that double in size: the clocks leave whatever state the setup or
    // idle left them in before anything is timed (a 10 us kernel's two warm-up runs do not).
    cuda_event start, end;
    start.record(ctx.stream);
    for (int i = 0; i < opts.settings.warmup; ++i) {
      if (flusher) flusher->flush(ctx.stream);
      w->run(ctx.stream);
    }
    end.record(ctx.stream);
    CUDABENCH_CHECK_CUDA(cudaEventSynchronize(end.get()));
    double warmed = end.since(start);  // a heavy workload's counted warm-up already covers warmup_ms
    if (opts.settings.warmup_ms > 0) {
      for (long batch = 1; warmed < opts.settings.warmup_ms && !stop;
           batch = std::min(2 * batch, kMaxRunsPerRepetition)) {
        start.record(ctx.stream);
        for (long i = 0; i < batch; ++i) {
          if (flusher) flusher->flush(ctx.stream);
          w->run(ctx.stream);
        }
        end.record(ctx.stream);
        CUDABENCH_CHECK_CUDA(cudaEventSynchronize(end.get()));
        warmed += end.since(start);
      }
    }
    CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(ctx.stream));
    mem.sample();

    // Size the batch from one timed run.
    if (flusher) flusher->flush(ctx.stream);
    start.record(ctx.stream);
    w->run(ctx.stream);
    end.record(ctx.stream);
    CUDABENCH_CHECK_CUDA(cudaEventSynchronize(end.get()));
    const double one_ms = std::max(1e-4, static_cast<double>(end.since(start)));
    const long runs =
        std::clamp<long>(static_cast<long>(std::ceil(opts.settings.min_time_ms / one_ms)), 1, kMaxRunsPerRepetition);

    // Short runs: a captured graph of them, replayed `replays` times per repetition (sized from one
    // timed replay, after a first one that uploads the graph).
    graph_batch batch;
    long replays = 0;
    if (!flusher && one_ms < graph_timing_below_ms && w->graph_capturable()) {
      batch = capture_batch(*w, ctx.stream, one_ms);
      if (batch) {
        batch.exec.launch(ctx.stream);
        start.record(ctx.stream);
        batch.exec.launch(ctx.stream);
        end.record(ctx.stream);
        CUDABENCH_CHECK_CUDA(cudaEventSynchronize(end.get()));
        const double replay_ms = std::max(1e-4, static_cast<double>(end.since(start)));
        replays = std::clamp<long>(static_cast<long>(std::ceil(opts.settings.min_time_ms / replay_ms)), 1,
                                   kMaxRunsPerRepetition / batch.calls);
      }
    }
    w->before_timing(ctx);
    std::vector<double> launch_ms;  // graph-timed workloads: the one-by-one launch loop too

    measurement m;
    std::vector<repetition_reading> readings;
    // Only the timed repetitions run inside the profiler's range, so `ncu --profile-from-start off`
    // (or nsys's cudaProfilerApi capture range) sees what is measured and not setup, tuning,
    // validation or warm-up. Without a profiler attached these calls do nothing.
    profiler_range profiled;
    for (int rep = 0; rep < opts.settings.repetitions; ++rep) {
      if (stop) throw std::runtime_error("interrupted");
      double elapsed = 0;
      long timed_runs = runs;
      repetition_reading reading;
      // The energy counter is read on both sides of the timed region only, and the clock right after
      // it (before the graph path's launch loop), so both describe what the sample timed.
      const std::optional<std::uint64_t> energy_before = clocks.energy_mj();
      auto close_window = [&] {
        const std::optional<std::uint64_t> energy_after = clocks.energy_mj();
        reading.energy_counter_read = energy_before && energy_after;
        if (reading.energy_counter_read) {
          reading.energy_counter_went_back = *energy_after < *energy_before;
          if (!reading.energy_counter_went_back) reading.energy_mj = *energy_after - *energy_before;
        }
        reading.sm_mhz = clocks.after_repetition(r.clocks);
        if (!flusher) with_probe([&](sm_clock_probe& p) { reading.counted_mhz = p.average_mhz(ctx.stream); });
      };
      // The SM stamps go just outside the events, so they count the region's cycles without being
      // timed (a few microseconds against a repetition of min_time_ms).
      auto stamp_before = [&] {
        with_probe([&](sm_clock_probe& p) { p.begin(ctx.stream); });
        start.record(ctx.stream);
      };
      auto stamp_after = [&] {
        end.record(ctx.stream);
        with_probe([&](sm_clock_probe& p) { p.end(ctx.stream); });
      };
      if (flusher) {
        // Cold: each run is preceded by a flush, which must stay outside the timed region.
        for (long i = 0; i < runs; ++i) {
          flusher->flush(ctx.stream);
          start.record(ctx.stream);
          w->run(ctx.stream);
          end.record(ctx.stream);
          CUDABENCH_CHECK_CUDA(cudaEventSynchronize(end.get()));
          elapsed += end.since(start);
        }
        close_window();
      } else if (batch) {
        stamp_before();
        for (long i = 0; i < replays; ++i) batch.exec.launch(ctx.stream);
        stamp_after();
        CUDABENCH_CHECK_CUDA(cudaEventSynchronize(end.get()));
        timed_runs = replays * batch.calls;
        elapsed = end.since(start);
        close_window();
        // The launch-inclusive time, as un-captured runs are timed: kept as `launch_ms`.
        start.record(ctx.stream);
        for (long i = 0; i < runs; ++i) w->run(ctx.stream);
        end.record(ctx.stream);
        CUDABENCH_CHECK_CUDA(cudaEventSynchronize(end.get()));
        launch_ms.push_back(end.since(start) / static_cast<double>(runs));
      } else {
        stamp_before();
        for (long i = 0; i < runs; ++i) w->run(ctx.stream);
        stamp_after();
        CUDABENCH_CHECK_CUDA(cudaEventSynchronize(end.get()));
        elapsed = end.since(start);
        close_window();
      }
      CUDABENCH_CHECK_LAUNCH();
      m.per_run_ms.push_back(elapsed / static_cast<double>(timed_runs));
      reading.per_run_ms = m.per_run_ms.back();
      reading.runs = timed_runs;
      readings.push_back(reading);
      w->after_repetition(ctx);
      CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(ctx.stream));
      mem.sample();
    }
    profiled.stop();
    clock_reader::flag_drops(r.clocks);
    m.peak_memory_bytes = mem.peak();
    const cycle_energy_metrics power = cycle_and_energy_metrics(readings, clocks.nvml.available(), flusher != nullptr);
    m.energy_j_per_run = power.energy_per_run;
    r.metrics = w->metrics(m);
    if (!launch_ms.empty()) r.metrics.emplace_back("launch_ms", time_metric(launch_ms));
    if (power.cycles) r.metrics.emplace_back("cycles", *power.cycles);
    if (power.sm_cycles) r.metrics.emplace_back("sm_cycles", *power.sm_cycles);
    if (power.energy_j) r.metrics.emplace_back("energy_j", *power.energy_j);
    r.clocks.energy_absent = power.energy_absent;
    r.peak_memory_bytes = m.peak_memory_bytes;
    w->teardown();
    r.state = status::ok;
    if (r.clocks.throttled) r.message = "clock throttling seen during the repetitions";
  } catch (const oom_error& e) {
    r.state = status::oom;
    r.message = e.what();
    if (e.requested_bytes()) r.oom_requested_bytes = e.requested_bytes();
  } catch (const validation_error& e) {  // a check made after timing (workload::metrics)
    r.state = status::failed_validation;
    r.message = e.what();
    if (r.validation) r.validation->passed = false;
  } catch (const unsupported_error& e) {
    r.state = status::unsupported;
    r.message = e.what();
  } catch (const std::exception& e) {
    r.state = stop ? status::skipped : status::error;
    r.message = e.what();
  }
  if (!r.peak_memory_bytes) r.peak_memory_bytes = mem.peak();
  sm_clock.reset();  // before a device reset invalidates its buffer
  if (r.state != status::ok) {
    r.metrics.clear();
    recover_device(opts.device);
  }
  return r;
}

}  // namespace cudabench
