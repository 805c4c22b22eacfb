// Oracle helper for tests/oracle/oracle_train_step.py: one training step of cudabench's
// mlp_trainer on a seeded small shape, written as safetensors for PyTorch to repeat.
//   train_step_oracle_run --out OUT.safetensors [--dtype fp16|bf16 --layers 3 --hidden 256
//       --batch 128 --seed 5]
// OUT: w_init [L,H,H] (fp32 master before the step), x0 [B,H] (the 16-bit input, as F32),
// target [B,H], grads [L,H,H] (first-step weight gradients, unscaled), w_after [L,H,H] (master
// after the AdamW step), loss [1], scale [1] (the loss scale the step used), hparams [5]
// (lr, beta1, beta2, eps, weight_decay).
#include <cstdio>
#include <exception>

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "cudabench/gpu/blaslt.hpp"
#include "cudabench/gpu/cuda_check.hpp"
#include "oracle_io.hpp"
#include "workloads/train_step/mlp_trainer.hpp"

using namespace cudabench;

namespace {

std::vector<float> down32(const float* p, std::size_t n) {
  std::vector<float> v(n);
  CUDABENCH_CHECK_CUDA(cudaMemcpy(v.data(), p, n * 4, cudaMemcpyDeviceToHost));
  return v;
}

std::vector<float> down16(const void* p, std::size_t n, dtype k) {
  std::vector<std::uint16_t> raw(n);
  CUDABENCH_CHECK_CUDA(cudaMemcpy(raw.data(), p, n * 2, cudaMemcpyDeviceToHost));
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (k == dtype::fp16) {
      __half_raw h;
      h.x = raw[i];
      v[i] = __half2float(__half(h));
    } else {
      __nv_bfloat16_raw b;
      b.x = raw[i];
      v[i] = __bfloat162float(__nv_bfloat16(b));
    }
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const oracle_io::args a(argc, argv);
    train::mlp_config c;
    c.kind = a.str("dtype", "fp16") == "bf16" ? dtype::bf16 : dtype::fp16;
    c.layers = a.num("layers", 3);
    c.hidden = a.num("hidden", 256);
    c.batch = a.num("batch", 128);
    blaslt_context lt;
    train::mlp_trainer t(lt, c);
    t.init(static_cast<std::uint64_t>(a.num("seed", 5)), nullptr);
    CUDABENCH_CHECK_CUDA(cudaDeviceSynchronize());

    const std::int64_t L = c.layers, H = c.hidden, B = c.batch;
    const float scale = t.read_scaler().scale;
    oracle_io::tensor w_init{{L, H, H}, down32(t.master(), c.params())};
    oracle_io::tensor x0{{B, H}, down16(t.input(), c.acts(), c.kind)};
    oracle_io::tensor target{{B, H}, down32(t.target(), c.acts())};
    t.forward_backward(nullptr);
    CUDABENCH_CHECK_CUDA(cudaDeviceSynchronize());
    oracle_io::tensor grads{{L, H, H}, down32(t.grads(), c.params())};
    for (float& g : grads.data) g /= scale;
    oracle_io::tensor loss{{1}, {t.read_loss()}};
    t.optimizer_step(nullptr);
    CUDABENCH_CHECK_CUDA(cudaDeviceSynchronize());
    oracle_io::tensor w_after{{L, H, H}, down32(t.master(), c.params())};
    oracle_io::tensor scale_t{{1}, {scale}};
    oracle_io::tensor hp{{5}, {c.hp.lr, c.hp.beta1, c.hp.beta2, c.hp.eps, c.hp.weight_decay}};
    oracle_io::write_safetensors(a.str("out"), {{"w_init", w_init},
                                                {"x0", x0},
                                                {"target", target},
                                                {"grads", grads},
                                                {"w_after", w_after},
                                                {"loss", loss},
                                                {"scale", scale_t},
                                                {"hparams", hp}});
    std::printf("train_step_oracle_run: %s layers %d hidden %d batch %d, loss %.6g, scale %g -> %s\n",
                dtype_name(c.kind), c.layers, c.hidden, c.batch, loss.data[0], scale, a.str("out").c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "train_step_oracle_run: %s\n", e.what());
    return 1;
  }
}
