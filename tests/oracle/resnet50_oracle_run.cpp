// Oracle helper for tests/oracle/oracle_resnet50.py: runs cudabench's ResNet-50 (the cuDNN model,
// or the naive fp32 reference) on a torchvision state_dict exported to safetensors and a raw
// float32 NCHW input file, and writes the logits as raw float32 [batch, 1000].
//   resnet50_oracle_run --weights W.safetensors --input X.f32 --batch N [--image-size 224]
//                       [--dtype fp16|fp32] [--impl model|reference] --output Y.f32
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "cudabench/device_memory.hpp"
#include "cudabench/gpu/cuda_check.hpp"
#include "cudabench/gpu/cuda_handles.hpp"
#include "workloads/resnet50/resnet_model.hpp"
#include "workloads/resnet50/resnet_reference.hpp"

namespace {

int usage(const char* msg) {
  std::fprintf(stderr,
               "resnet50_oracle_run: %s\nusage: resnet50_oracle_run --weights W --input X --batch N "
               "[--image-size S] [--dtype fp16|fp32] [--impl model|reference] --output Y\n",
               msg);
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace cudabench;
  std::map<std::string, std::string> args = {{"--image-size", "224"}, {"--dtype", "fp32"}, {"--impl", "model"}};
  for (int i = 1; i + 1 < argc; i += 2) args[argv[i]] = argv[i + 1];
  if (argc % 2 == 0) return usage("every option takes a value");
  for (const char* k : {"--weights", "--input", "--batch", "--output"})
    if (!args.count(k)) return usage((std::string("missing ") + k).c_str());
  try {
    const int batch = std::atoi(args["--batch"].c_str());
    const int size = std::atoi(args["--image-size"].c_str());
    const resnet::arch a = resnet::resnet50_arch(size);
    const resnet::raw_params p = resnet::load_params(a, args["--weights"]);

    const std::size_t count = static_cast<std::size_t>(batch) * 3 * size * size;
    std::vector<float> host(count);
    {
      std::ifstream f(args["--input"], std::ios::binary);
      f.read(reinterpret_cast<char*>(host.data()), static_cast<std::streamsize>(count * sizeof(float)));
      if (!f) return usage("input file shorter than batch x 3 x size x size float32");
    }
    device_buffer<float> images(count);
    CUDABENCH_CHECK_CUDA(cudaMemcpy(images.get(), host.data(), count * sizeof(float), cudaMemcpyHostToDevice));
    const cuda_stream owner(cudaStreamDefault);  // blocking, as cudaStreamCreate makes
    const cudaStream_t stream = owner.get();

    std::vector<float> logits;
    if (args["--impl"] == "reference") {
      logits = resnet::reference_forward(a, p, images.get(), batch, stream);
      std::printf("naive fp32 reference, batch %d\n", batch);
    } else {
#ifdef CUDABENCH_HAVE_CUDNN
      resnet::model_options opt;
      opt.dtype = args["--dtype"] == "fp16" ? dtype::fp16 : dtype::fp32;
      opt.batch = batch;
      resnet::resnet_model m(a, p, opt);
      m.set_input(images.get(), stream);
      m.forward(stream);
      logits = m.logits(stream);
      std::printf("cuDNN model %s, batch %d: %s\n", args["--dtype"].c_str(), batch, m.note().c_str());
#else
      std::fprintf(stderr, "resnet50_oracle_run: built without cuDNN\n");
      return 3;
#endif
    }
    std::ofstream out(args["--output"], std::ios::binary);
    out.write(reinterpret_cast<const char*>(logits.data()),
              static_cast<std::streamsize>(logits.size() * sizeof(float)));
    return out ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "resnet50_oracle_run: %s\n", e.what());
    return 1;
  }
}
