// Oracle helper for tests/oracle/oracle_transformer.py: runs cudabench's transformer::model on a
// torch.nn.Transformer state_dict and src/tgt inputs given as safetensors, writes the output.
//   transformer_oracle_run --weights W.safetensors --inputs IN.safetensors --out OUT.safetensors
//       [--d-model 512 --nhead 8 --enc 6 --dec 6 --ff 2048] [--fp16]
// IN holds "src" [batch, src_len, d_model] and "tgt" [batch, tgt_len, d_model] (F32); OUT holds
// "out" [batch, tgt_len, d_model] (F32).
#include <cstdio>
#include <exception>

#include "cudabench/gpu/blaslt.hpp"
#include "cudabench/gpu/cuda_check.hpp"
#include "cudabench/safetensors.hpp"
#include "kernels/train_step/cast.cuh"
#include "oracle_io.hpp"
#include "workloads/transformer_memory/model.hpp"

using namespace cudabench;

namespace {

void upload(const checkpoint& ck, const std::string& name, const std::vector<std::int64_t>& shape, void* dst,
            dtype type) {
  const tensor_info& t = ck.expect(name, {"F32"}, shape);
  const std::size_t n = static_cast<std::size_t>(t.numel());
  if (type != dtype::fp16) {
    CUDABENCH_CHECK_CUDA(cudaMemcpy(dst, ck.data(t), n * 4, cudaMemcpyHostToDevice));
    return;
  }
  device_buffer<float> staging(n);
  CUDABENCH_CHECK_CUDA(cudaMemcpy(staging.get(), ck.data(t), n * 4, cudaMemcpyHostToDevice));
  kernels::train_step::cast_from_float(dst, staging.get(), n, dtype::fp16, nullptr);
  CUDABENCH_CHECK_CUDA(cudaDeviceSynchronize());
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const oracle_io::args a(argc, argv);
    const checkpoint inputs = checkpoint::open(a.str("inputs"));
    const tensor_info* src = inputs.find("src");
    const tensor_info* tgt = inputs.find("tgt");
    if (!src || !tgt || src->shape.size() != 3 || tgt->shape.size() != 3) {
      std::fprintf(stderr, "inputs must hold src and tgt of rank 3\n");
      return 2;
    }
    transformer::config c;
    c.d_model = a.num("d-model", 512);
    c.nhead = a.num("nhead", 8);
    c.encoder_layers = a.num("enc", 6);
    c.decoder_layers = a.num("dec", 6);
    c.dim_feedforward = a.num("ff", 2048);
    c.batch = static_cast<int>(src->shape[0]);
    c.src_len = static_cast<int>(src->shape[1]);
    c.tgt_len = static_cast<int>(tgt->shape[1]);
    c.dtype = a.flag("fp16") ? dtype::fp16 : dtype::fp32;

    blaslt_context lt;
    transformer::model m(lt, c);
    m.load_weights(a.str("weights"), nullptr);
    upload(inputs, "src", src->shape, m.src(), c.dtype);
    upload(inputs, "tgt", tgt->shape, m.tgt(), c.dtype);
    // As the workload does: the tuner's attention kernel is the one compared with PyTorch.
    std::printf("transformer_oracle_run: %s\n", m.tune_attention(17, nullptr).c_str());
    m.forward(nullptr);
    CUDABENCH_CHECK_CUDA(cudaDeviceSynchronize());
    oracle_io::tensor out;
    out.shape = {c.batch, c.tgt_len, c.d_model};
    out.data = transformer::download_floats(m.output(), m.output_elems(), c.dtype);
    oracle_io::write_safetensors(a.str("out"), {{"out", out}});
    std::printf("transformer_oracle_run: d_model %d heads %d layers %d+%d ff %d batch %d src %d tgt %d %s -> %s\n",
                c.d_model, c.nhead, c.encoder_layers, c.decoder_layers, c.dim_feedforward, c.batch, c.src_len,
                c.tgt_len, dtype_name(c.dtype), a.str("out").c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "transformer_oracle_run: %s\n", e.what());
    return 1;
  }
}
