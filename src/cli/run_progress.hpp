// The progress lines `cudabench run` prints on stderr while a suite runs (the runner's observer,
// runner_options.hpp): "[i/n] id ... elapsed, ETA" before each workload, the status and message of one
// that did not end ok, and a closing line when Ctrl-C stopped the run.
#pragma once
#include <chrono>
#include <string>
#include <utility>

#include "cudabench/runner_options.hpp"

namespace cudabench::cli {

class progress_printer final : public run_observer {
 public:
  // `output_path`: the result file, named in the interrupted line ("" = none).
  explicit progress_printer(std::string output_path) : output_path_(std::move(output_path)) {}
  void on_workload_start(std::size_t index, std::size_t count, const workload_spec& spec) override;
  void on_workload_done(std::size_t index, std::size_t count, const workload_result& r) override;
  void on_interrupted(std::size_t recorded, std::size_t count) override;

 private:
  std::string output_path_;
  std::chrono::steady_clock::time_point t0_ = std::chrono::steady_clock::now();
};

}  // namespace cudabench::cli
