// transformer_memory's train mode on the GPU: the forward with dropout against the CPU double
// reference drawing the same masks; its memory -- exactly the plan (inputs, weights, scratch and
// one buffer per saved tensor), above inference's by the saved-tensor accounting; and a row's
// mem_limit reporting oom with the bytes asked for, through the CLI; the torch_match dump hook.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "cudabench/device_memory.hpp"
#include "cudabench/gpu/blaslt.hpp"
#include "cudabench/gpu/cuda_check.hpp"
#include "cudabench/result.hpp"
#include "cudabench/safetensors.hpp"
#include "gpu_test_fixture.hpp"
#include "workloads/transformer_memory/model.hpp"
#include "workloads/transformer_memory/reference.hpp"
#include "workloads/transformer_memory/torch_dump.hpp"
#include "workloads/transformer_memory/validate.hpp"

namespace cudabench {
namespace {

namespace fs = std::filesystem;
#define REQUIRE_GPU() CUDABENCH_REQUIRE_GPU("transformer_memory train GPU tests skipped")

transformer::config train_config(dtype t, double p) {
  transformer::config c = transformer::validation_config(t);
  c.mode = transformer::run_mode::train;
  c.dropout = p;
  c.dropout_seed = 1234;
  return c;
}

validation_outcome validate(const transformer::config& c, std::uint64_t seed) {
  blaslt_context lt;
  transformer::model m(lt, c);
  m.init_random(seed, nullptr);
  const transformer::host_snapshot snap = transformer::snapshot(m);
  return transformer::compare_with_reference(m, snap, nullptr, transformer::validation_tolerance(c.dtype));
}

// Exact semantics: the reference drops exactly the elements the kernels dropped, so the
// tolerance is inference's (1e-4 fp32), not a statistical one.
TEST(TransformerTrainGpu, MatchesCpuReferenceWithTheSameMasks) {
  REQUIRE_GPU();
  for (double p : {0.1, 0.5, 0.0}) {
    const validation_outcome v = validate(train_config(dtype::fp32, p), 21);
    std::printf("p %.1f: %s\n", p, v.message.c_str());
    EXPECT_TRUE(v.passed) << v.message;
    EXPECT_LE(v.max_rel_error, 1e-4);
  }
  const validation_outcome h = validate(train_config(dtype::fp16, 0.1), 22);
  std::printf("fp16: %s\n", h.message.c_str());
  EXPECT_TRUE(h.passed) << h.message;
}

// A different mask seed must change the output (the masks are really applied): the reference
// with seed 1234 against a device run with seed 99 fails.
TEST(TransformerTrainGpu, OtherMasksFailValidation) {
  REQUIRE_GPU();
  blaslt_context lt;
  transformer::config c = train_config(dtype::fp32, 0.1);
  c.dropout_seed = 99;
  transformer::model m(lt, c);
  m.init_random(21, nullptr);
  const transformer::host_snapshot snap = transformer::snapshot(m);
  CUDABENCH_CHECK_CUDA(cudaDeviceSynchronize());
  // compare_with_reference uses m.cfg(): build the reference from the other seed by hand.
  m.forward(nullptr);
  CUDABENCH_CHECK_CUDA(cudaDeviceSynchronize());
  const std::vector<float> got = transformer::download_floats(m.output(), m.output_elems(), c.dtype);
  transformer::config other = c;
  other.dropout_seed = 1234;
  const std::vector<double> ref = transformer::reference_forward(other, snap.weights, snap.src, snap.tgt);
  double worst = 0;
  for (std::size_t i = 0; i < got.size(); ++i) worst = std::max(worst, std::fabs(got[i] - ref[i]));
  EXPECT_GT(worst, 1e-2);
}

// Memory: construction allocates exactly planned_bytes (no allocator rounding: the harness counts
// the bytes asked of cudaMalloc), forward allocates nothing, and train - inference is the
// accounting's saved bytes less the inference-only buffers (enc_x and dec_x, and the larger
// inference scratch: validation_config runs one sequence per chunk, 150 x 128 elements in train,
// max(4 * 150 * 128, ...) = 76800 in inference).
TEST(TransformerTrainGpu, PeakIsTheAccountingPlusTheWorkingSet) {
  REQUIRE_GPU();
  blaslt_context lt;
  const transformer::config inf = transformer::validation_config(dtype::fp32);
  const transformer::config tr = train_config(dtype::fp32, 0.1);
  std::uint64_t bytes[2] = {0, 0};
  for (int k = 0; k < 2; ++k) {
    const std::uint64_t before = memory_tracker::current();
    memory_tracker::reset_peak();
    {
      transformer::model m(lt, k == 0 ? inf : tr);
      m.init_random(3, nullptr);
      m.forward(nullptr);
      CUDABENCH_CHECK_CUDA(cudaDeviceSynchronize());
      bytes[k] = memory_tracker::peak() - before;
      EXPECT_EQ(memory_tracker::current() - before, bytes[k]) << "forward must not allocate";
      EXPECT_EQ(bytes[k], transformer::model::planned_bytes(k == 0 ? inf : tr));
    }
  }
  const std::uint64_t saved = transformer::saved_bytes_total(tr.saved_shape());
  const std::uint64_t tokens = static_cast<std::uint64_t>(inf.src_tokens() + inf.tgt_tokens());
  std::printf("inference %llu bytes, train %llu bytes, saved tensors %llu bytes\n",
              static_cast<unsigned long long>(bytes[0]), static_cast<unsigned long long>(bytes[1]),
              static_cast<unsigned long long>(saved));
  EXPECT_GT(bytes[1], bytes[0]);
  EXPECT_EQ(bytes[1], bytes[0] + saved - tokens * 128 * 4 - (76800 - 150 * 128) * 4);
}

// A train row whose own mem_limit is below what it needs: status oom, the bytes of the
// allocation that failed, the message naming the row's limit; the next row (no cap) runs.
TEST(TransformerTrainGpu, RowMemLimitReportsOom) {
  REQUIRE_GPU();
  const fs::path dir = fs::temp_directory_path();
  const fs::path suite = dir / "cudabench_train_oom_suite.json", out = dir / "cudabench_train_oom.json";
  std::ofstream(suite) << R"({"name": "t", "workloads": [
    {"kind": "transformer_memory", "batch": 8, "seq_len": 128, "mode": "train", "mem_limit": "256MiB"},
    {"kind": "transformer_memory", "batch": 1, "seq_len": 64, "mode": "train"}]})";
  fs::remove(out);
  const std::string cmd = std::string(CUDABENCH_BINARY) + " --suite " + suite.string() +
                          " --reps 2 --warmup 1 --min-time-ms 2 -q -o " + out.string() + " > /dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const result_file r = read_result_file(out.string());
  ASSERT_EQ(r.workloads.size(), 2u);
  EXPECT_EQ(r.workloads[0].state, status::oom) << r.workloads[0].message;
  ASSERT_TRUE(r.workloads[0].oom_requested_bytes.has_value());
  EXPECT_GT(*r.workloads[0].oom_requested_bytes, 0u);
  EXPECT_NE(r.workloads[0].message.find("the row's mem_limit 0.25 GiB"), std::string::npos) << r.workloads[0].message;
  EXPECT_EQ(r.workloads[1].state, status::ok) << r.workloads[1].message;
}

// CUDABENCH_TRANSFORMER_DUMP through the CLI: one file for the row, with the state_dict under
// torch's names, the inputs, a finite output and all 60 masks of the 6+6 layers, each the draw
// of its (layer, site) -- what scripts/torch_match.py hands PyTorch.
TEST(TransformerTrainGpu, TorchDumpHoldsTheForwardAndItsMasks) {
  REQUIRE_GPU();
  const fs::path dir = fs::temp_directory_path() / "cudabench_torch_dump";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path suite = dir / "suite.json";
  std::ofstream(suite) << R"({"name": "t", "workloads": [
    {"kind": "transformer_memory", "batch": 1, "seq_len": 16, "mode": "train"}]})";
  const std::string cmd = "CUDABENCH_TRANSFORMER_DUMP=" + dir.string() + " " + CUDABENCH_BINARY + " --suite " +
                          suite.string() + " --reps 1 --warmup 0 -q --no-output > /dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::vector<fs::path> dumps;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".safetensors") dumps.push_back(e.path());
  ASSERT_EQ(dumps.size(), 1u);
  const checkpoint ck = checkpoint::open(dumps[0].string());
  ck.expect("encoder.layers.0.self_attn.in_proj_weight", {"F32"}, {1536, 512});
  ck.expect("decoder.norm.bias", {"F32"}, {512});
  ck.expect("src", {"F32"}, {1, 16, 512});
  const tensor_info& out = ck.expect("output", {"F32"}, {1, 16, 512});
  const float* y = reinterpret_cast<const float*>(ck.data(out));
  EXPECT_TRUE(std::all_of(y, y + out.numel(), [](float v) { return std::isfinite(v); }));
  std::size_t masks = 0;
  for (const auto& n : ck.names()) masks += n.rfind("mask.", 0) == 0;
  EXPECT_EQ(masks, 60u);
  const tensor_info& m = ck.expect("mask.decoder.layers.5.multihead_attn", {"U8"}, {1, 8, 16, 16});
  // The workload's mask seed from the run's seed (run_context::seed 0x5eed); layer 11 = decoder 5.
  const std::vector<std::uint8_t> want = transformer::dropout_mask(
      transformer::dropout_site_seed(0x5eed * 1000003ull + 17, 11, transformer::dropout_site::cross_attention_probs),
      transformer::dropout_threshold(0.1), 1 * 8 * 16 * 16);
  EXPECT_TRUE(std::equal(want.begin(), want.end(), reinterpret_cast<const std::uint8_t*>(ck.data(m))));
  ck.expect("mask.encoder.layers.0.dropout", {"U8"}, {1, 16, 2048});
  ck.expect("mask.encoder.layers.5.dropout2", {"U8"}, {1, 16, 512});
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cudabench
