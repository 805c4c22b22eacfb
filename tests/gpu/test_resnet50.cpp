// GPU tests for the resnet50 workload: verify() passes in fp32 and fp16 (the timed model's first
// images and the reduced-width network against the naive fp32 reference), each convolution shape
// class of the network (fused and plain) matches a CPU double-precision convolution, a corrupted
// weight makes verify() fail, and a checkpoint with a wrong shape is an input_error naming the
// tensor.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include <cuda_fp16.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cudabench/device_memory.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/gpu/cuda_check.hpp"
#include "cudabench/gpu/cuda_handles.hpp"
#include "cudabench/gpu/registry.hpp"
#include "gpu_test_fixture.hpp"
#include "kernels/common/random_fill.cuh"
#include "workloads/resnet50/conv_layer.hpp"
#include "workloads/resnet50/resnet50.hpp"
#include "workloads/resnet50/resnet50_workload.hpp"
#include "workloads/resnet50/resnet_model.hpp"

namespace cudabench {
namespace {

#define RESNET_REQUIRE_GPU() CUDABENCH_REQUIRE_GPU("resnet50 GPU tests skipped")

workload_spec spec(const std::string& dtype, int batch, int image_size, const std::string& weights = "random") {
  workload_spec s;
  s.kind = "resnet50";
  s.params = nlohmann::ordered_json::object();
  s.params["dtype"] = dtype;
  s.params["batch"] = batch;
  s.params["image_size"] = image_size;
  s.params["weights"] = weights;
  s.params["tune"] = false;
  s.id = "resnet50/dtype=" + dtype + "/batch=" + std::to_string(batch) + "/image_size=" + std::to_string(image_size) +
         "/weights=" + weights + "/tune=false";
  return s;
}

struct stream_holder {
  cuda_stream owner{cudaStreamDefault};  // blocking, as cudaStreamCreate makes
  cudaStream_t s = owner.get();
};

run_context context(cudaStream_t s) {
  run_context ctx;
  ctx.stream = s;
  ctx.seed = 1234;
  return ctx;
}

#ifdef CUDABENCH_HAVE_CUDNN

struct verify_case {
  const char* dtype;
  int batch, image_size;
};

class ResNet50Verify : public ::testing::TestWithParam<verify_case> {};

TEST_P(ResNet50Verify, PassesAgainstNaiveReference) {
  RESNET_REQUIRE_GPU();
  const verify_case c = GetParam();
  stream_holder st;
  run_context ctx = context(st.s);
  auto w = find_kind("resnet50")->make(spec(c.dtype, c.batch, c.image_size));
  w->setup(ctx);
  const validation_outcome v = w->verify(ctx);
  std::printf("resnet50 %s batch %d %dx%d: max_rel_error %.3g (tol %.1g): %s\n", c.dtype, c.batch, c.image_size,
              c.image_size, v.max_rel_error, v.tolerance, v.message.c_str());
  EXPECT_TRUE(v.passed) << v.message;
  EXPECT_LE(v.max_rel_error, v.tolerance);
  // run() is enqueue-only and repeatable; the cold-start metric works.
  w->run(st.s);
  w->run(st.s);
  CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(st.s));
  w->after_repetition(ctx);
  measurement m;
  m.per_run_ms = {1.0, 1.1};
  m.peak_memory_bytes = 1000000000;
  const metric_list ms = w->metrics(m);
  ASSERT_EQ(ms.front().first, "images_per_s");
  EXPECT_NEAR(ms.front().second.samples[0], c.batch * 1000.0, 1e-6);  // batch images in 1 ms
  bool has_cold = false;
  for (const auto& [name, met] : ms)
    if (name == "first_inference_ms") {
      has_cold = true;
      ASSERT_EQ(met.samples.size(), 1u);
      EXPECT_GT(met.samples[0], 0.0);
      std::printf("first_inference_ms (cold) %.2f\n", met.samples[0]);
    }
  EXPECT_TRUE(has_cold);
  w->teardown();
}

// Small images at full width (fast), and the real 224x224 geometry with more images than the
// reference checks.
INSTANTIATE_TEST_SUITE_P(Shapes, ResNet50Verify,
                         ::testing::Values(verify_case{"fp32", 2, 64}, verify_case{"fp16", 2, 64},
                                           verify_case{"fp32", 3, 224}, verify_case{"fp16", 3, 224}),
                         [](const ::testing::TestParamInfo<verify_case>& i) {
                           return std::string(i.param.dtype) + "_b" + std::to_string(i.param.batch) + "_s" +
                                  std::to_string(i.param.image_size);
                         });

TEST(ResNet50, CorruptedWeightFailsVerify) {
  RESNET_REQUIRE_GPU();
  stream_holder st;
  run_context ctx = context(st.s);
  resnet50_workload w(spec("fp32", 2, 64));
  w.setup(ctx);
  // Zero one bottleneck's 3x3 weights (layer2.0.conv2); the graph reads the same memory.
  const auto& convs = w.model()->architecture().convs;
  std::size_t victim = 0;
  for (std::size_t i = 0; i < convs.size(); ++i)
    if (convs[i].name == "layer2.0.conv2") victim = i;
  ASSERT_NE(victim, 0u);
  CUDABENCH_CHECK_CUDA(cudaMemset(w.model()->conv_weights(victim), 0, w.model()->conv_weight_bytes(victim)));
  const validation_outcome v = w.verify(ctx);
  std::printf("corrupted: max_rel_error %.3g (tol %.1g): %s\n", v.max_rel_error, v.tolerance, v.message.c_str());
  EXPECT_FALSE(v.passed);
  EXPECT_GT(v.max_rel_error, v.tolerance);
}

TEST(ResNet50, WrongShapeInCheckpointNamesTensor) {
  RESNET_REQUIRE_GPU();
  // A safetensors file whose conv1.weight is 3x3 instead of 7x7.
  const std::string path = ::testing::TempDir() + "resnet50_wrong_shape.safetensors";
  const std::size_t count = 64 * 3 * 3 * 3;
  nlohmann::json header;
  header["conv1.weight"] = {{"dtype", "F32"}, {"shape", {64, 3, 3, 3}}, {"data_offsets", {0, count * 4}}};
  std::string h = header.dump();
  while (h.size() % 8) h += ' ';
  const std::uint64_t len = h.size();
  std::vector<float> data(count, 0.5f);
  {
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(&len), 8);
    f.write(h.data(), static_cast<std::streamsize>(h.size()));
    f.write(reinterpret_cast<const char*>(data.data()), static_cast<std::streamsize>(count * 4));
  }
  stream_holder st;
  run_context ctx = context(st.s);
  resnet50_workload w(spec("fp16", 1, 224, path));
  try {
    w.setup(ctx);
    FAIL() << "expected input_error";
  } catch (const input_error& e) {
    std::printf("wrong shape: %s\n", e.what());
    EXPECT_NE(std::string(e.what()).find("conv1.weight"), std::string::npos) << e.what();
  }
  std::remove(path.c_str());
}

// ---- one convolution of each shape class against a CPU double reference ------------------------

struct conv_case {
  const char* name;
  int c, h, k, kernel, stride, pad;
  bool fused, residual;
};

// y = conv(x, w) (+ b + z, relu if fused), NCHW, double accumulation.
std::vector<double> cpu_conv(const conv_case& t, int n, const std::vector<float>& x, const std::vector<float>& w,
                             const std::vector<float>& b, const std::vector<float>& z) {
  const int p = (t.h + 2 * t.pad - t.kernel) / t.stride + 1;
  std::vector<double> y(static_cast<std::size_t>(n) * t.k * p * p);
  for (int ni = 0; ni < n; ++ni)
    for (int ki = 0; ki < t.k; ++ki)
      for (int pi = 0; pi < p; ++pi)
        for (int qi = 0; qi < p; ++qi) {
          double acc = 0;
          for (int ci = 0; ci < t.c; ++ci)
            for (int r = 0; r < t.kernel; ++r)
              for (int s = 0; s < t.kernel; ++s) {
                const int hi = pi * t.stride - t.pad + r, wi = qi * t.stride - t.pad + s;
                if (hi < 0 || hi >= t.h || wi < 0 || wi >= t.h) continue;
                acc += static_cast<double>(x[((static_cast<std::size_t>(ni) * t.c + ci) * t.h + hi) * t.h + wi]) *
                       w[((static_cast<std::size_t>(ki) * t.c + ci) * t.kernel + r) * t.kernel + s];
              }
          const std::size_t o = ((static_cast<std::size_t>(ni) * t.k + ki) * p + pi) * p + qi;
          if (t.fused) {
            acc += b[ki];
            if (t.residual) acc += z[o];
            acc = std::max(acc, 0.0);
          }
          y[o] = acc;
        }
  return y;
}

// NCHW [n, c, h, w] -> NHWC [n, h, w, c_pad] (zero padded), host.
std::vector<float> to_nhwc(const std::vector<float>& v, int n, int c, int h, int c_pad) {
  std::vector<float> out(static_cast<std::size_t>(n) * h * h * c_pad, 0.0f);
  for (int ni = 0; ni < n; ++ni)
    for (int ci = 0; ci < c; ++ci)
      for (int i = 0; i < h * h; ++i)
        out[(static_cast<std::size_t>(ni) * h * h + i) * c_pad + ci] =
            v[(static_cast<std::size_t>(ni) * c + ci) * h * h + i];
  return out;
}

device_buffer<std::byte> upload(const std::vector<float>& v, bool half) {
  device_buffer<std::byte> buf(v.size() * (half ? 2 : 4));
  if (half) {
    std::vector<__half> hv(v.size());
    for (std::size_t i = 0; i < v.size(); ++i) hv[i] = __float2half_rn(v[i]);
    CUDABENCH_CHECK_CUDA(cudaMemcpy(buf.get(), hv.data(), buf.bytes(), cudaMemcpyHostToDevice));
  } else {
    CUDABENCH_CHECK_CUDA(cudaMemcpy(buf.get(), v.data(), buf.bytes(), cudaMemcpyHostToDevice));
  }
  return buf;
}

std::vector<float> download(const device_buffer<std::byte>& buf, std::size_t count, bool half) {
  std::vector<float> out(count);
  if (half) {
    std::vector<__half> hv(count);
    CUDABENCH_CHECK_CUDA(cudaMemcpy(hv.data(), buf.get(), count * 2, cudaMemcpyDeviceToHost));
    for (std::size_t i = 0; i < count; ++i) out[i] = __half2float(hv[i]);
  } else {
    CUDABENCH_CHECK_CUDA(cudaMemcpy(out.data(), buf.get(), count * 4, cudaMemcpyDeviceToHost));
  }
  return out;
}

std::vector<float> host_uniform(std::size_t n, std::uint64_t seed, float lo, float hi) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = kernels::uniform_at(seed, i, lo, hi);
  return v;
}

class ResNet50Conv : public ::testing::TestWithParam<bool> {};  // param: fp16

TEST_P(ResNet50Conv, EachShapeClassMatchesCpu) {
  RESNET_REQUIRE_GPU();
  const bool half = GetParam();
  const conv_case cases[] = {
      {"stem 7x7 s2 (3 channels)", 3, 32, 16, 7, 2, 3, true, false},
      {"1x1 s1 reduce", 64, 14, 16, 1, 1, 0, true, false},
      {"3x3 s1", 16, 14, 16, 3, 1, 1, true, false},
      {"3x3 s2 (v1.5 stride)", 16, 14, 16, 3, 2, 1, true, false},
      {"1x1 s1 expand + residual", 16, 14, 64, 1, 1, 0, true, true},
      {"1x1 s2 shortcut (plain)", 32, 14, 64, 1, 2, 0, false, false},
  };
  const int n = 2;
  resnet::numerics num = half ? resnet::numerics{CUDNN_DATA_HALF, CUDNN_TENSOR_NHWC}
                              : resnet::numerics{CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW};
  resnet::cudnn_handle handle;
  stream_holder st;
  CUDABENCH_CHECK_CUDNN(cudnnSetStream(handle.get(), st.s));
  resnet::algo_cache cache;
  std::uint64_t seed = 99;
  for (const conv_case& t : cases) {
    const int p = (t.h + 2 * t.pad - t.kernel) / t.stride + 1;
    const int c_pad = half ? (t.c + 7) / 8 * 8 : t.c;
    const float bound = std::sqrt(3.0f / static_cast<float>(t.c * t.kernel * t.kernel));
    std::vector<float> x = host_uniform(static_cast<std::size_t>(n) * t.c * t.h * t.h, ++seed, -1.0f, 1.0f);
    std::vector<float> w =
        host_uniform(static_cast<std::size_t>(t.k) * t.c * t.kernel * t.kernel, ++seed, -bound, bound);
    std::vector<float> b = host_uniform(static_cast<std::size_t>(t.k), ++seed, -0.5f, 0.5f);
    std::vector<float> z = host_uniform(static_cast<std::size_t>(n) * t.k * p * p, ++seed, -1.0f, 1.0f);
    if (half) {  // the CPU reference sees the fp16-rounded inputs
      for (auto* v : {&x, &w, &b, &z})
        for (float& e : *v) e = __half2float(__float2half_rn(e));
    }
    const std::vector<double> ref = cpu_conv(t, n, x, w, b, z);

    std::vector<float> w_dev(static_cast<std::size_t>(t.k) * t.kernel * t.kernel * c_pad, 0.0f);
    if (half) {  // OIHW -> KRSC, channel-padded
      for (int ki = 0; ki < t.k; ++ki)
        for (int ci = 0; ci < t.c; ++ci)
          for (int rs = 0; rs < t.kernel * t.kernel; ++rs)
            w_dev[(static_cast<std::size_t>(ki) * t.kernel * t.kernel + rs) * c_pad + ci] =
                w[(static_cast<std::size_t>(ki) * t.c + ci) * t.kernel * t.kernel + rs];
    } else {
      w_dev = w;
    }
    auto xd = upload(half ? to_nhwc(x, n, t.c, t.h, c_pad) : x, half);
    auto wd = upload(w_dev, half);
    auto bd = upload(b, half);
    auto zd = upload(half ? to_nhwc(z, n, t.k, p, t.k) : z, half);
    const std::size_t out_count = static_cast<std::size_t>(n) * t.k * p * p;
    device_buffer<std::byte> yd(out_count * (half ? 2 : 4));
    CUDABENCH_CHECK_CUDA(cudaMemset(yd.get(), 0, yd.bytes()));

    resnet::conv_shape s;
    s.n = n;
    s.c = c_pad;
    s.h = s.w = t.h;
    s.k = t.k;
    s.kernel = t.kernel;
    s.stride = t.stride;
    s.pad = t.pad;
    resnet::conv_layer layer(s, num, t.fused, t.residual);
    const std::size_t ws =
        layer.max_candidate_workspace(handle.get(), cache, false, std::size_t{512} << 20, xd.get(), wd.get(), yd.get());
    device_buffer<std::byte> workspace(std::max<std::size_t>(ws, 256));
    layer.plan(handle.get(), cache, false, xd.get(), wd.get(), t.fused ? bd.get() : nullptr,
               t.residual ? zd.get() : nullptr, yd.get(), workspace.get(), workspace.bytes());
    CUDABENCH_CHECK_CUDA(cudaMemset(yd.get(), 0, yd.bytes()));
    layer.run(handle.get(), xd.get(), wd.get(), t.fused ? bd.get() : nullptr, t.residual ? zd.get() : nullptr, yd.get(),
              workspace.get(), workspace.bytes());
    CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(st.s));
    std::vector<float> y = download(yd, out_count, half);
    if (half) {  // NHWC -> NCHW for the comparison
      std::vector<float> yc(out_count);
      for (int ni = 0; ni < n; ++ni)
        for (int ki = 0; ki < t.k; ++ki)
          for (int i = 0; i < p * p; ++i)
            yc[(static_cast<std::size_t>(ni) * t.k + ki) * p * p + i] =
                y[(static_cast<std::size_t>(ni) * p * p + i) * t.k + ki];
      y = yc;
    }
    double num2 = 0, den2 = 0, worst = 0;
    for (std::size_t i = 0; i < out_count; ++i) {
      const double d = y[i] - ref[i];
      num2 += d * d;
      den2 += ref[i] * ref[i];
      worst = std::max(worst, std::fabs(d));
    }
    const double rel = std::sqrt(num2 / den2);
    const double tol = half ? 2e-3 : 5e-5;
    std::printf("%s conv %-28s algo %d%s: rel L2 %.3g (max abs diff %.3g), tol %.0e\n", half ? "fp16" : "fp32", t.name,
                static_cast<int>(layer.choice().algo), layer.split() ? " (split epilogue)" : "", rel, worst, tol);
    EXPECT_LE(rel, tol) << t.name;
  }
}

INSTANTIATE_TEST_SUITE_P(Precisions, ResNet50Conv, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& i) { return i.param ? "fp16" : "fp32"; });

#else

TEST(ResNet50, NeedsCudnn) { GTEST_SKIP() << "built without cuDNN: resnet50 reports unsupported"; }

#endif

}  // namespace
}  // namespace cudabench
