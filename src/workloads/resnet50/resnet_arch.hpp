// The ResNet-50 topology as data: torchvision's resnet50 (v1.5 -- the stride of a downsampling
// bottleneck sits on its 3x3 convolution), with the state_dict names of every convolution and
// batch-norm so checkpoints, random weights, the cuDNN model and the naive reference all walk the
// same list. `width_div` divides every channel count (the reduced network verify() checks against
// the naive reference); image_size may be any multiple of 32.
#pragma once
#include <string>
#include <vector>

namespace cudabench::resnet {

struct conv_spec {
  std::string name;  // state_dict prefix of the convolution, e.g. "layer2.0.conv2"
  std::string bn;    // state_dict prefix of its batch-norm, e.g. "layer2.0.bn2"
  int in_c = 0, out_c = 0, kernel = 1, stride = 1, pad = 0;
  int fan_in() const { return in_c * kernel * kernel; }
};

// One bottleneck: out = relu(bn3(conv3(relu(bn2(conv2(relu(bn1(conv1(x)))))))) + shortcut(x)),
// shortcut = bn(downsample(x)) or x. Indices into arch::convs.
struct block_spec {
  int conv1 = -1, conv2 = -1, conv3 = -1;
  int downsample = -1;  // -1: identity shortcut
};

struct arch {
  int image_size = 224;
  int width_div = 1;
  int in_channels = 3;
  int num_classes = 1000;
  int features = 2048;           // channels into the global average pool / fc
  std::vector<conv_spec> convs;  // convs[0] is the stem (conv1 / bn1)
  std::vector<block_spec> blocks;
  std::string fc = "fc";  // fc.weight [num_classes, features], fc.bias [num_classes]
};

// Throws input_error unless image_size is a positive multiple of 32 and width_div divides 64.
arch resnet50_arch(int image_size, int width_div = 1, int num_classes = 1000);

// Output side of a convolution / pooling window (floor mode, as torch).
inline int out_size(int in, int kernel, int stride, int pad) { return (in + 2 * pad - kernel) / stride + 1; }

// Spatial sizes through the network: stem output, after max-pool, and the final feature map.
inline int stem_out(const arch& a) { return out_size(a.image_size, 7, 2, 3); }
inline int pool_out(const arch& a) { return out_size(stem_out(a), 3, 2, 1); }

// Multiply-adds of one image's forward pass x2 (FLOPs), for reporting.
double forward_flops_per_image(const arch& a);

}  // namespace cudabench::resnet
