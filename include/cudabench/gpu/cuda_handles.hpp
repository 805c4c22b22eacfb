// Move-only owners of CUDA streams, events and instantiated graphs: the one set every workload,
// tool and test uses. GPU work is timed with events on one stream only -- never host timers.
#pragma once
#include <utility>

#include <cuda_runtime.h>

#include "cudabench/gpu/cuda_check.hpp"

namespace cudabench {

class cuda_stream {
 public:
  // Non-blocking by default: the harness's streams must not serialise with the legacy default
  // stream. Pass cudaStreamDefault for a blocking one (what cudaStreamCreate makes).
  cuda_stream() : cuda_stream(cudaStreamNonBlocking) {}
  explicit cuda_stream(unsigned flags) { CUDABENCH_CHECK_CUDA(cudaStreamCreateWithFlags(&s_, flags)); }
  ~cuda_stream() {
    if (s_) cudaStreamDestroy(s_);
  }
  cuda_stream(cuda_stream&& o) noexcept : s_(std::exchange(o.s_, nullptr)) {}
  cuda_stream& operator=(cuda_stream&& o) noexcept {
    std::swap(s_, o.s_);
    return *this;
  }
  cuda_stream(const cuda_stream&) = delete;
  cuda_stream& operator=(const cuda_stream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

class cuda_event {
 public:
  explicit cuda_event(unsigned flags = cudaEventDefault) { CUDABENCH_CHECK_CUDA(cudaEventCreateWithFlags(&e_, flags)); }
  ~cuda_event() {
    if (e_) cudaEventDestroy(e_);
  }
  cuda_event(cuda_event&& o) noexcept : e_(std::exchange(o.e_, nullptr)) {}
  cuda_event& operator=(cuda_event&& o) noexcept {
    std::swap(e_, o.e_);
    return *this;
  }
  cuda_event(const cuda_event&) = delete;
  cuda_event& operator=(const cuda_event&) = delete;
  void record(cudaStream_t s) { CUDABENCH_CHECK_CUDA(cudaEventRecord(e_, s)); }
  cudaEvent_t get() const { return e_; }
  // Milliseconds from `start` to this event; both must have completed.
  float since(const cuda_event& start) const {
    float ms = 0;
    CUDABENCH_CHECK_CUDA(cudaEventElapsedTime(&ms, start.e_, e_));
    return ms;
  }

 private:
  cudaEvent_t e_ = nullptr;
};

// An instantiated graph.
class graph_exec {
 public:
  graph_exec() = default;
  ~graph_exec() { reset(); }
  graph_exec(graph_exec&& o) noexcept : exec_(std::exchange(o.exec_, nullptr)) {}
  graph_exec& operator=(graph_exec&& o) noexcept {
    std::swap(exec_, o.exec_);
    return *this;
  }
  graph_exec(const graph_exec&) = delete;
  graph_exec& operator=(const graph_exec&) = delete;
  void reset() {
    if (exec_) cudaGraphExecDestroy(exec_);
    exec_ = nullptr;
  }

  // Instantiates `graph` (still the caller's to destroy). Returns the error instead of throwing;
  // on failure this stays empty.
  cudaError_t instantiate(cudaGraph_t graph) {
    reset();
    cudaGraphExec_t exec = nullptr;  // assigned only on success
    const cudaError_t err = cudaGraphInstantiate(&exec, graph, 0);
    if (err == cudaSuccess) exec_ = exec;
    return err;
  }

  // Captures everything `enqueue(stream)` puts on `stream` (which must not be the legacy default
  // stream) and instantiates it; the graph itself is released once instantiated. Throws on
  // failure, leaving the stream out of capture and this empty.
  template <class F>
  void capture(cudaStream_t stream, F&& enqueue, cudaStreamCaptureMode mode = cudaStreamCaptureModeThreadLocal) {
    reset();
    CUDABENCH_CHECK_CUDA(cudaStreamBeginCapture(stream, mode));
    cudaGraph_t graph = nullptr;
    try {
      enqueue(stream);
    } catch (...) {
      cudaStreamEndCapture(stream, &graph);  // leave the stream usable
      if (graph) cudaGraphDestroy(graph);
      throw;
    }
    CUDABENCH_CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
    const cudaError_t err = instantiate(graph);
    cudaGraphDestroy(graph);
    CUDABENCH_CHECK_CUDA(err);
  }

  void launch(cudaStream_t stream) const { CUDABENCH_CHECK_CUDA(cudaGraphLaunch(exec_, stream)); }
  cudaGraphExec_t get() const { return exec_; }
  explicit operator bool() const { return exec_ != nullptr; }

 private:
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace cudabench
