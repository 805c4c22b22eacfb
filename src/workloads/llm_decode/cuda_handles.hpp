// Move-only owners of the CUDA handles the LLM workload keeps: events, a stream, a graph exec.
#pragma once
#include <utility>

#include <cuda_runtime.h>

#include "cudabench/cuda_check.hpp"

namespace cudabench::llm {

class cuda_event {
 public:
  cuda_event() { CUDABENCH_CHECK_CUDA(cudaEventCreate(&e_)); }
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
  cudaEvent_t get() const { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

class cuda_stream {
 public:
  cuda_stream() { CUDABENCH_CHECK_CUDA(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~cuda_stream() {
    if (s_) cudaStreamDestroy(s_);
  }
  cuda_stream(const cuda_stream&) = delete;
  cuda_stream& operator=(const cuda_stream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

// A captured and instantiated graph (the graph itself is released once instantiated).
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
  // Captures everything `enqueue(stream)` puts on `stream` (which must not be the legacy default
  // stream) and instantiates it.
  template <class F>
  void capture(cudaStream_t stream, F&& enqueue) {
    reset();
    CUDABENCH_CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    cudaGraph_t graph = nullptr;
    try {
      enqueue(stream);
    } catch (...) {
      cudaStreamEndCapture(stream, &graph);  // leave the stream usable
      if (graph) cudaGraphDestroy(graph);
      throw;
    }
    CUDABENCH_CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
    cudaGraphExec_t exec = nullptr;  // assigned only on success: a failed instantiate leaves us empty
    const cudaError_t err = cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphDestroy(graph);
    CUDABENCH_CHECK_CUDA(err);
    exec_ = exec;
  }
  void launch(cudaStream_t stream) const { CUDABENCH_CHECK_CUDA(cudaGraphLaunch(exec_, stream)); }
  explicit operator bool() const { return exec_ != nullptr; }

 private:
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace cudabench::llm
