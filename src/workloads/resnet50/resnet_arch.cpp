// See resnet_arch.hpp.
#include "workloads/resnet50/resnet_arch.hpp"

#include <fmt/format.h>

#include "cudabench/errors.hpp"

namespace cudabench::resnet {

arch resnet50_arch(int image_size, int width_div, int num_classes) {
  if (image_size < 32 || image_size % 32 != 0)
    throw input_error(fmt::format("resnet50: image_size {} is not a positive multiple of 32", image_size));
  if (width_div < 1 || 64 % width_div != 0)
    throw input_error(fmt::format("resnet50: width divisor {} does not divide 64", width_div));
  arch a;
  a.image_size = image_size;
  a.width_div = width_div;
  a.num_classes = num_classes;
  const int stem = 64 / width_div;
  a.convs.push_back({"conv1", "bn1", a.in_channels, stem, 7, 2, 3});

  const int depth[4] = {3, 4, 6, 3};
  const int width[4] = {64, 128, 256, 512};
  int in_c = stem;
  for (int s = 0; s < 4; ++s) {
    const int mid = width[s] / width_div, out = 4 * width[s] / width_div;
    for (int b = 0; b < depth[s]; ++b) {
      const std::string p = fmt::format("layer{}.{}.", s + 1, b);
      // torchvision v1.5: the first block of stages 2-4 strides on its 3x3 convolution.
      const int stride = (b == 0 && s > 0) ? 2 : 1;
      block_spec blk;
      blk.conv1 = static_cast<int>(a.convs.size());
      a.convs.push_back({p + "conv1", p + "bn1", in_c, mid, 1, 1, 0});
      blk.conv2 = static_cast<int>(a.convs.size());
      a.convs.push_back({p + "conv2", p + "bn2", mid, mid, 3, stride, 1});
      blk.conv3 = static_cast<int>(a.convs.size());
      a.convs.push_back({p + "conv3", p + "bn3", mid, out, 1, 1, 0});
      if (b == 0) {  // channel count (and for s > 0 the size) changes: projection shortcut
        blk.downsample = static_cast<int>(a.convs.size());
        a.convs.push_back({p + "downsample.0", p + "downsample.1", in_c, out, 1, stride, 0});
      }
      a.blocks.push_back(blk);
      in_c = out;
    }
  }
  a.features = in_c;
  return a;
}

double forward_flops_per_image(const arch& a) {
  double flops = 0;
  int h = a.image_size;
  // Walk the convolutions in order, tracking the input size of each from its stride.
  // The stem is followed by a stride-2 max-pool; the blocks' convs see the pooled size.
  const conv_spec& stem = a.convs[0];
  const int hs = out_size(h, stem.kernel, stem.stride, stem.pad);
  flops += 2.0 * stem.fan_in() * stem.out_c * hs * hs;
  h = pool_out(a);
  for (const auto& blk : a.blocks) {
    const conv_spec& c1 = a.convs[blk.conv1];
    const conv_spec& c2 = a.convs[blk.conv2];
    const conv_spec& c3 = a.convs[blk.conv3];
    const int h2 = out_size(h, c2.kernel, c2.stride, c2.pad);
    flops += 2.0 * c1.fan_in() * c1.out_c * h * h;
    flops += 2.0 * c2.fan_in() * c2.out_c * h2 * h2;
    flops += 2.0 * c3.fan_in() * c3.out_c * h2 * h2;
    if (blk.downsample >= 0) {
      const conv_spec& d = a.convs[blk.downsample];
      flops += 2.0 * d.fan_in() * d.out_c * h2 * h2;
    }
    h = h2;
  }
  flops += 2.0 * a.features * a.num_classes;
  return flops;
}

}  // namespace cudabench::resnet
