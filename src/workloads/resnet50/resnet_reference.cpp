// See resnet_reference.hpp.
#include "workloads/resnet50/resnet_reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "cudabench/device_memory.hpp"
#include "cudabench/gpu/cuda_check.hpp"
#include "kernels/resnet50/reference_ops.cuh"

namespace cudabench::resnet {
namespace {

device_buffer<float> upload(const std::vector<float>& v) {
  device_buffer<float> b(v.size());
  CUDABENCH_CHECK_CUDA(cudaMemcpy(b.get(), v.data(), v.size() * sizeof(float), cudaMemcpyHostToDevice));
  return b;
}

struct device_bn {
  device_buffer<float> gamma, beta, mean, var;
};

}  // namespace

std::vector<float> reference_forward(const arch& a, const raw_params& p, const float* images, int n,
                                     cudaStream_t stream) {
  namespace k = kernels::resnet50;
  std::vector<device_buffer<float>> w;
  std::vector<device_bn> bn;
  for (std::size_t i = 0; i < a.convs.size(); ++i) {
    w.push_back(upload(p.conv_w[i]));
    bn.push_back({upload(p.bn[i].gamma), upload(p.bn[i].beta), upload(p.bn[i].mean), upload(p.bn[i].var)});
  }
  device_buffer<float> fc_w = upload(p.fc_w), fc_b = upload(p.fc_b);

  const int hs = stem_out(a), hp = pool_out(a);
  // Every activation fits in n * stem_out_c * hs^2 (the stem output is as large as any later one).
  std::size_t max_elems = static_cast<std::size_t>(a.convs[0].out_c) * hs * hs;
  for (const auto& c : a.convs) max_elems = std::max(max_elems, static_cast<std::size_t>(c.out_c) * hp * hp);
  std::vector<device_buffer<float>> buf;
  for (int i = 0; i < 5; ++i) buf.emplace_back(static_cast<std::size_t>(n) * max_elems);

  // conv -> batch-norm (-> + z) (-> relu), all in fp32 NCHW.
  auto conv_bn = [&](std::size_t ci, const float* x, float* y, int h) {
    const conv_spec& c = a.convs[ci];
    k::reference_conv2d(x, w[ci].get(), y, n, c.in_c, h, h, c.out_c, c.kernel, c.stride, c.pad, stream);
    const int ho = out_size(h, c.kernel, c.stride, c.pad);
    k::reference_batchnorm(y, bn[ci].gamma.get(), bn[ci].beta.get(), bn[ci].mean.get(), bn[ci].var.get(),
                           static_cast<float>(bn_eps), n, c.out_c, ho * ho, stream);
    return ho;
  };
  auto count = [&](int c, int h) { return static_cast<long long>(n) * c * h * h; };

  const conv_spec& stem = a.convs[0];
  conv_bn(0, images, buf[0].get(), a.image_size);
  k::reference_add_relu(buf[0].get(), nullptr, true, count(stem.out_c, hs), stream);
  k::reference_maxpool3x3s2(buf[0].get(), buf[1].get(), n, stem.out_c, hs, hs, stream);

  int xi = 1, h = hp;
  for (const auto& blk : a.blocks) {
    int f[4], nf = 0;
    for (int i = 0; i < 5; ++i)
      if (i != xi) f[nf++] = i;
    float* x = buf[static_cast<std::size_t>(xi)].get();
    float* t1 = buf[static_cast<std::size_t>(f[0])].get();
    float* t2 = buf[static_cast<std::size_t>(f[1])].get();
    float* t3 = buf[static_cast<std::size_t>(f[2])].get();
    float* sc = buf[static_cast<std::size_t>(f[3])].get();
    const conv_spec& c1 = a.convs[static_cast<std::size_t>(blk.conv1)];
    const conv_spec& c2 = a.convs[static_cast<std::size_t>(blk.conv2)];
    const conv_spec& c3 = a.convs[static_cast<std::size_t>(blk.conv3)];
    conv_bn(static_cast<std::size_t>(blk.conv1), x, t1, h);
    k::reference_add_relu(t1, nullptr, true, count(c1.out_c, h), stream);
    const int h2 = conv_bn(static_cast<std::size_t>(blk.conv2), t1, t2, h);
    k::reference_add_relu(t2, nullptr, true, count(c2.out_c, h2), stream);
    conv_bn(static_cast<std::size_t>(blk.conv3), t2, t3, h2);
    const float* shortcut = x;
    if (blk.downsample >= 0) {
      conv_bn(static_cast<std::size_t>(blk.downsample), x, sc, h);
      shortcut = sc;
    }
    k::reference_add_relu(t3, shortcut, true, count(c3.out_c, h2), stream);
    xi = f[2];
    h = h2;
  }
  device_buffer<float> pooled(static_cast<std::size_t>(n) * a.features);
  device_buffer<float> logits(static_cast<std::size_t>(n) * a.num_classes);
  k::reference_global_avgpool(buf[static_cast<std::size_t>(xi)].get(), pooled.get(), n, a.features, h * h, stream);
  k::reference_linear(pooled.get(), fc_w.get(), fc_b.get(), logits.get(), n, a.features, a.num_classes, stream);
  std::vector<float> out(logits.size());
  CUDABENCH_CHECK_CUDA(cudaStreamSynchronize(stream));
  CUDABENCH_CHECK_CUDA(cudaMemcpy(out.data(), logits.get(), logits.size() * sizeof(float), cudaMemcpyDeviceToHost));
  return out;
}

double relative_l2(const std::vector<float>& y, const std::vector<float>& ref, std::size_t count) {
  double num = 0, den = 0;
  for (std::size_t i = 0; i < count; ++i) {
    if (!std::isfinite(y[i])) return std::numeric_limits<double>::infinity();
    const double d = static_cast<double>(y[i]) - ref[i];
    num += d * d;
    den += static_cast<double>(ref[i]) * ref[i];
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

}  // namespace cudabench::resnet
