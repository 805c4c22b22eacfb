// run_suite(): the loop over workloads, progress to the observer, and the result file rewritten
// atomically after every workload.
#include "cudabench/gpu/runner.hpp"

#include <cuda_runtime.h>
#include <fmt/format.h>

#include "cudabench/build_commit.hpp"
#include "cudabench/build_config.hpp"
#include "cudabench/device_memory.hpp"
#include "cudabench/env.hpp"
#include "cudabench/gpu_processes.hpp"
#include "cudabench/loaded_libraries.hpp"

namespace cudabench {

result_file run_suite(const suite& s, const factory_lookup& factories, const runner_options& opts,
                      const std::atomic<bool>& stop, run_observer* observer) {
  run_observer silent;
  run_observer& obs = observer ? *observer : silent;
  require_device(opts.device);
  // Who else computes on this GPU, asked before cudaSetDevice creates our own context there.
  const auto others = other_gpu_processes(opts.device);
  if (others) warn_other_processes(opts.device, *others);
  cudaSetDevice(opts.device);
  memory_tracker::set_limit(opts.mem_limit);

  result_file out;
  out.tool = {
      {"name", "cudabench"}, {"version", CUDABENCH_VERSION}, {"git_commit", build_commit()}, {"argv", opts.argv}};
  out.build = build_info();
  out.environment = probe_environment(opts.device, opts.label);
  if (others) out.environment["other_processes"] = *others;
  out.suite = suite_identity_json(s);
  out.settings = to_json(opts.settings);
  out.settings["cold_l2"] = opts.cold;
  out.settings["mem_limit_bytes"] = opts.mem_limit;
  if (!opts.tuning_from_source.empty()) out.settings["tuning_from"] = opts.tuning_from_source;
  out.started_at = utc_now_iso8601();
  // Libraries load others lazily (cuDNN its engines, those cuBLASLt), so what the process mapped is
  // read again before every save; a mix of CUDA releases is recorded, and said the first time.
  auto note_libraries = [&] {
    const auto loaded = loaded_cuda_libraries();
    if (loaded.empty()) return;
    out.environment["loaded_cuda_libraries"] = loaded;
    const auto mix = library_mix_problem(loaded);
    if (!mix) return;
    if (!out.environment.contains("library_mix")) fmt::print(stderr, "cudabench: WARNING: {}\n", *mix);
    out.environment["library_mix"] = *mix;
  };
  auto save = [&] {
    note_libraries();
    out.finished_at = utc_now_iso8601();
    if (!opts.output_path.empty()) write_result_file(out, opts.output_path);
  };
  save();

  const std::size_t n = s.workloads.size();
  for (std::size_t i = 0; i < n && !stop; ++i) {
    const auto& spec = s.workloads[i];
    obs.on_workload_start(i, n, spec);
    // A row's own `mem_limit` (transformer_memory's, for the seed's 24 GB card) caps it like
    // --mem-limit; the smaller applies, and the run's limit is back for the next row.
    const std::uint64_t row_limit = spec.has("mem_limit") ? spec.params.at("mem_limit").get<std::uint64_t>() : 0;
    const bool row_caps = row_limit != 0 && (opts.mem_limit == 0 || row_limit < opts.mem_limit);
    if (row_caps) memory_tracker::set_limit(row_limit, "the row's mem_limit");
    workload_result r = run_workload(spec, factories(spec.kind), opts, stop);
    if (row_caps) memory_tracker::set_limit(opts.mem_limit);
    obs.on_workload_done(i, n, r);
    out.workloads.push_back(std::move(r));
    save();
  }
  if (stop) obs.on_interrupted(out.workloads.size(), n);
  return out;
}

}  // namespace cudabench
