// transformer_memory's train mode without a GPU: the saved-tensor accounting (worked out by hand
// below for a tiny shape, and the default shape's totals), the dropout mask RNG, and the
// parameters `mode`, `dropout`, `backward` and `mem_limit` as validate checks them.
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cli_runner.hpp"
#include "cudabench/row_names.hpp"
#include "kernels/transformer_memory/dropout_rng.hpp"
#include "test_support.hpp"
#include "workloads/transformer_memory/saved_tensors.hpp"
#include "workloads/transformer_memory/torch_dump.hpp"

using cudabench::test::temp_path;
using cudabench::test::write_text;
using namespace cudabench::transformer;

namespace {

// d_model 8, 2 heads, ff 16, 1+1 layers, batch 2, src 3 (Ts = 6 tokens), tgt 5 (Tt = 10), fp32.
train_shape tiny(bool dropout) {
  train_shape s;
  s.d_model = 8;
  s.nhead = 2;
  s.dim_feedforward = 16;
  s.encoder_layers = 1;
  s.decoder_layers = 1;
  s.batch = 2;
  s.src_len = 3;
  s.tgt_len = 5;
  s.dropout = dropout;
  return s;
}

}  // namespace

// Encoder self-attention, Ts*D = 48 elements: q,k,v 3*48*4 = 576, SDPA output 192, logsumexp
// 2 batch * 2 heads * 32 (3 rounded up) * 4 = 512, out_proj input 192, mask 48, sum 192,
// mean+rstd 2*6*4 = 48, norm output 192: 1952.
TEST(TransformerTrain, SelfAttentionBytesByHand) {
  const saved_list l = saved_self_attention(tiny(true), 3);
  ASSERT_EQ(l.size(), 8u);
  EXPECT_EQ(l[0].bytes, 576u);
  EXPECT_EQ(l[2].bytes, 512u);
  EXPECT_EQ(l[4].bytes, 48u);  // 1-byte mask
  EXPECT_EQ(saved_bytes(l), 1952u);
  EXPECT_EQ(saved_bytes(saved_self_attention(tiny(false), 3)), 1952u - 48u);  // p = 0: no mask
}

// Encoder feed-forward, Ts*F = 96: ReLU output 384, hidden mask 96, hidden dropout output 384,
// output mask 48, sum 192, stats 48, norm output 192: 1344; at p = 0 only 384 + 192 + 48 + 192 = 816.
TEST(TransformerTrain, FeedForwardBytesByHand) {
  EXPECT_EQ(saved_bytes(saved_feed_forward(tiny(true), 3)), 1344u);
  EXPECT_EQ(saved_bytes(saved_feed_forward(tiny(false), 3)), 816u);
}

// Decoder cross-attention, Tt*D = 80, Ts*D = 48: q 320, k,v 2*48*4 = 384, output 320, logsumexp
// 2*2*32*4 = 512, out_proj input 320, mask 80, sum 320, stats 2*10*4 = 80, norm output 320: 2656.
TEST(TransformerTrain, CrossAttentionBytesByHand) { EXPECT_EQ(saved_bytes(saved_cross_attention(tiny(true))), 2656u); }

// Layers: encoder 1952 + 1344 = 3296; decoder self 2912 (qkv 960, out 320, lse 512, proj 320,
// mask 80, sum 320, stats 80, norm 320) + cross 2656 + ff 2240 (640 + 160 + 640 + 80 + 320 + 80 +
// 320) = 7808; final norms 48 + 192 and 80 + 320: total 11744.
TEST(TransformerTrain, LayerAndTotalBytesByHand) {
  EXPECT_EQ(saved_bytes_encoder_layer(tiny(true)), 3296u);
  EXPECT_EQ(saved_bytes_decoder_layer(tiny(true)), 7808u);
  EXPECT_EQ(saved_bytes_total(tiny(true)), 11744u);
  EXPECT_EQ(saved_bytes_total(tiny(false)), 10128u);
  train_shape half = tiny(true);
  // fp16: activations halve, masks, logsumexp and LayerNorm statistics keep their size --
  // self-attention 288 + 96 + 512 + 96 + 48 + 96 + 48 + 96 = 1280, ff 192 + 96 + 192 + 48 + 96 + 48 + 96 = 768.
  half.elem_bytes = 2;
  EXPECT_EQ(saved_bytes_encoder_layer(half), 2048u);
}

// The default nn.Transformer at batch 32, seq 512, fp32 (docs/transformer-train-memory.md):
// encoder layer 592.75 MiB, decoder layer 825.375 MiB, all 8573 MiB; linear in the batch.
TEST(TransformerTrain, DefaultShapeTotals) {
  train_shape s;
  s.batch = 32;
  EXPECT_EQ(saved_bytes_encoder_layer(s), 621543424u);
  EXPECT_EQ(saved_bytes_decoder_layer(s), 865468416u);
  EXPECT_EQ(saved_bytes_total(s), 8989442048u);
  EXPECT_EQ(saved_bytes_total(s), 8573ull << 20);
  s.batch = 64;
  EXPECT_EQ(saved_bytes_total(s), 2 * 8989442048ull);
}

TEST(TransformerTrain, MaskRngIsDeterministicSplitmix) {
  EXPECT_EQ(splitmix64(0), 0xe220a8397b1dcdafull);  // splitmix64's published first output for seed 0
  std::uint64_t bits = 0;
  for (std::uint64_t i = 0; i < 64; ++i) bits |= std::uint64_t{dropout_keep(42, i, dropout_threshold(0.5))} << i;
  EXPECT_EQ(bits, 0x67831947fcd872a1ull);
  EXPECT_EQ(dropout_threshold(0.1), 1677722u);  // round(0.1 * 2^24)
  EXPECT_EQ(dropout_threshold(0.0), 0u);
  for (std::uint64_t i = 0; i < 1000; ++i) EXPECT_TRUE(dropout_keep(7, i, 0));  // p = 0 keeps all
  EXPECT_NE(dropout_site_seed(1, 0, dropout_site::ffn_out), dropout_site_seed(1, 1, dropout_site::ffn_out));
  EXPECT_NE(dropout_site_seed(1, 0, dropout_site::ffn_out), dropout_site_seed(1, 0, dropout_site::ffn_hidden));
}

// Over 4M elements the drop rate is p within 1e-3 (binomial sd 1.5e-4 at p = 0.1), for several p.
TEST(TransformerTrain, MaskRngRateIsP) {
  const std::uint64_t n = 1u << 22;
  for (double p : {0.1, 0.25, 0.5, 0.9}) {
    const std::uint32_t t = dropout_threshold(p);
    std::uint64_t dropped = 0;
    for (std::uint64_t i = 0; i < n; ++i)
      dropped += dropout_keep(dropout_site_seed(3, 2, dropout_site::ffn_hidden), i, t) ? 0 : 1;
    EXPECT_NEAR(static_cast<double>(dropped) / n, p, 1e-3) << p;
  }
}

// The masks the torch_match hook hands PyTorch are the kernels' draws, element by element, and
// its file names carry no '/' or '='.
TEST(TransformerTrain, DumpedMaskIsTheKernelsDraw) {
  const std::uint64_t seed = dropout_site_seed(5, 13, dropout_site::cross_attention_probs);
  const std::uint32_t t = dropout_threshold(0.1);
  const std::vector<std::uint8_t> m = dropout_mask(seed, t, 5000);
  ASSERT_EQ(m.size(), 5000u);
  std::size_t dropped = 0;
  for (std::size_t i = 0; i < m.size(); ++i) {
    EXPECT_EQ(m[i] == 1, dropout_keep(seed, i, t)) << i;
    dropped += m[i] == 0;
  }
  EXPECT_GT(dropped, 400u);  // about 500 of 5000 at p = 0.1
  EXPECT_LT(dropped, 600u);
  EXPECT_EQ(torch_dump_file_name("transformer_memory/batch=2/seq_len=512/mode=train/dropout=0.1"),
            "transformer_memory_batch_2_seq_len_512_mode_train_dropout_0.1.safetensors");
}

namespace {

void expect_refused(const std::string& entry, const std::string& words) {
  const std::string path = temp_path("train_suite.json");
  write_text(path, R"({"name": "t", "workloads": [)" + entry + "]}");
  const auto r = run_cudabench("validate " + path);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(words), std::string::npos) << r.output;
  EXPECT_EQ(r.output.rfind("cudabench: error: " + path + ": workloads[0]." + "", 0), 0u) << r.output;
  std::remove(path.c_str());
}

}  // namespace

TEST(TransformerTrain, ParamsRefused) {
  expect_refused(R"({"kind": "transformer_memory", "batch": 32, "mode": "training"})",
                 "unknown mode \"training\" (expected inference, train)");
  expect_refused(R"({"kind": "transformer_memory", "batch": 32, "mode": "train", "dropout": 1.0})",
                 "dropout: 1 is above the maximum 0.99");
  expect_refused(R"({"kind": "transformer_memory", "batch": 32, "mode": "train", "dropout": -0.1})",
                 "dropout: -0.1 is below the minimum 0");
  expect_refused(R"({"kind": "transformer_memory", "batch": 32, "mode": "train", "mem_limit": "24XB"})", "mem_limit");
  expect_refused(R"({"kind": "transformer_memory", "batch": 32, "mode": "train", "mem_limit": 0})",
                 "mem_limit: 0 is below the minimum 1");
  expect_refused(R"({"kind": "transformer_memory", "batch": 32, "mode": "train", "backward": "yes"})", "backward");
}

// The full suite's train rows: distinct, readable ids; mem_limit stored in bytes.
TEST(TransformerTrain, FullSuiteTrainRows) {
  const auto r = run_cudabench(std::string("list --suite ") + CUDABENCH_CONFIG_DIR + "/full.json");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const std::string id :
       {"transformer_memory/batch=32/seq_len=512/dtype=fp32\n",
        "transformer_memory/batch=128/seq_len=512/dtype=fp32/mode=train\n",
        "transformer_memory/batch=128/seq_len=512/dtype=fp32/mode=train/mem_limit=25769803776\n"})
    EXPECT_NE(r.output.find(id), std::string::npos) << id << "\n" << r.output;
}

// Compare tables and reports name the rows: inference unsaid, train and the cap spelled out.
TEST(TransformerTrain, RowNames) {
  const auto* names = cudabench::find_row_name("transformer_memory");
  ASSERT_NE(names, nullptr);
  nlohmann::ordered_json p = {{"batch", 32}, {"seq_len", 512}, {"dtype", "fp32"}};
  EXPECT_EQ(cudabench::describe_workload(*names, p), "transformer_memory fp32 batch 32 seq 512");
  p["mode"] = "inference";
  EXPECT_EQ(cudabench::describe_workload(*names, p), "transformer_memory fp32 batch 32 seq 512");
  p["mode"] = "train";
  p["mem_limit"] = 25769803776ull;
  EXPECT_EQ(cudabench::describe_workload(*names, p), "transformer_memory fp32 batch 32 seq 512 train cap 24GiB");
  p["dropout"] = 0.0;
  EXPECT_EQ(cudabench::describe_workload(*names, p),
            "transformer_memory fp32 batch 32 seq 512 train dropout 0.0 cap 24GiB");
  p["backward"] = false;  // the default goes unsaid
  EXPECT_EQ(cudabench::describe_workload(*names, p),
            "transformer_memory fp32 batch 32 seq 512 train dropout 0.0 cap 24GiB");
  p["backward"] = true;
  EXPECT_EQ(cudabench::describe_workload(*names, p),
            "transformer_memory fp32 batch 32 seq 512 train dropout 0.0 backward true cap 24GiB");
}
