// `cudabench noise`: the table compare's verdicts use, through the real binary (no history here;
// test_cli_history.cpp covers --history, which needs SQLite).
#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "test_support.hpp"

namespace {

std::string h200(const std::string& name) { return std::string(CUDABENCH_CONFIG_DIR) + "/../results/h200/" + name; }

}  // namespace

TEST(CliNoise, PrintsTheCommittedPriorWithItsSessionsAndDf) {
  const auto r = run_cudabench("noise --filter 'llm_decode/model=llama-2-7b*' --metric decode_tokens_per_s");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // Llama-2-7B decode 128->256 on the H200: 8 sessions in 5 levels (df 3), sessions 0.715% apart,
  // rounds 0.044%. On the H100: 14 sessions in 3 levels (df 11), 1.092% and 0.124%. Each GPU model
  // has its own rows. The H100's 2048 row takes its rounds' noise from its latest level (0.044%),
  // and says so.
  EXPECT_NE(r.output.find("prompt_tokens=128/max_length=256/batch=1 · decode_tokens_per_s"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("NVIDIA H200            committed         8   3           0.715          0.044  committed"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("NVIDIA H100 80GB HBM3  committed        14  11           1.092          0.124  committed"),
            std::string::npos)
      << r.output;
  EXPECT_NE(
      r.output.find(
          "NVIDIA H100 80GB HBM3  committed        14  11           0.994          0.044  committed, latest level"),
      std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("4 rows: committed 4."), std::string::npos) << r.output;
  const auto h200_only =
      run_cudabench("noise --gpu 'NVIDIA H200' --filter 'llm_decode/model=llama-2-7b*' --metric decode_tokens_per_s");
  ASSERT_EQ(h200_only.exit_code, 0) << h200_only.output;
  EXPECT_NE(h200_only.output.find("2 rows: committed 2."), std::string::npos) << h200_only.output;
  EXPECT_EQ(h200_only.output.find("H100"), std::string::npos) << h200_only.output;
}

TEST(CliNoise, ASelectionThatMatchesNothingSaysSo) {
  // An empty table would read as "no noise known": exit 2 naming the selection, and for --gpu the
  // model names the prior knows (it takes "NVIDIA H200", not "H200").
  auto r = run_cudabench("noise --gpu H200");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("no row of the noise prior matches --gpu H200 (--gpu takes a full model name: "),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("NVIDIA H200"), std::string::npos) << r.output;
  r = run_cudabench("noise --filter 'zzz*' --metric time_ms");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("no row of the noise prior matches --filter zzz* --metric time_ms"), std::string::npos)
      << r.output;
  r = run_cudabench("noise " + h200("aa-full/A.json") + " --metric nosuch");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("aa-full/A.json matches --metric nosuch"), std::string::npos) << r.output;
}

TEST(CliNoise, AFileShowsItsRowsAndSaysWhichFallBack) {
  // The H200 file's headline rows are measured; the same rows on a GPU model never measured fall
  // back to the kind's table, and the output says so (csv: one line per row plus the header).
  // Exceptions: fp32 and bf16 1024^3 GEMMs, whose only session since their tuner timed on the GPU
  // (2026-12-04, scripts/noise_prior.py: earlier ones are left out) gives no between-session df.
  auto r = run_cudabench("noise " + h200("aa-full/A.json") + " --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(std::count(r.output.begin(), r.output.end(), '\n'), 44) << r.output;  // header + 43 workloads
  std::size_t fallbacks = 0;
  for (std::size_t at = r.output.find(",fallback,"); at != std::string::npos; at = r.output.find(",fallback,", at + 1))
    ++fallbacks;
  EXPECT_EQ(fallbacks, 2u) << r.output;
  EXPECT_NE(r.output.find("matmul/dtype=fp32/m=1024/n=1024/k=1024 · time_ms,NVIDIA H200,fallback,0,known,4.500"),
            std::string::npos)
      << r.output;
  r = run_cudabench("noise " + cudabench::test::data_path("results/cu121_a100.json"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("NVIDIA A100-SXM4-80GB  fallback"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("fallback 6"), std::string::npos) << r.output;
  r = run_cudabench("noise " + cudabench::test::data_path("results/malformed.json"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("malformed.json"), std::string::npos) << r.output;
  r = run_cudabench("noise a.json b.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
}

TEST(CliNoise, CompareShowsTheMdeAndWhereTheNoiseCameFrom) {
  // Nightly mode on the committed H200 files: a stored single-round baseline against a later
  // session's 5 rounds. Every tested row has an mde; the summary prints it and the sources.
  const auto r = run_cudabench("compare " + h200("full.json") + " " + h200("aa-full/A.json") + " --format json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("\"mde_pct\": "), std::string::npos);
  EXPECT_NE(r.output.find("\"session_source\": \"committed\""), std::string::npos);
  EXPECT_NE(r.output.find("\"power\": 0.8"), std::string::npos);
  const auto t = run_cudabench("compare " + h200("full.json") + " " + h200("aa-full/A.json"));
  ASSERT_EQ(t.exit_code, 0) << t.output;
  EXPECT_NE(t.output.find("0 improved, 0 regressed"), std::string::npos) << t.output;  // A/A across sessions
  EXPECT_NE(t.output.find("minimum detectable change (80% power): median "), std::string::npos) << t.output;
  EXPECT_NE(t.output.find("session noise per row from: committed"), std::string::npos) << t.output;
  const auto bad = run_cudabench("compare " + h200("full.json") + " " + h200("aa-full/A.json") + " --power 1.5");
  EXPECT_EQ(bad.exit_code, 2) << bad.output;
}

TEST(CliNoise, TenPercentOnA4096GemmBetweenSingleRoundFilesIsAVerdictWhereTheClockHolds) {
  // The seed's way of measuring: one run per build, one file each. The candidate is the committed
  // single-round H200 file with its 4096^3 GEMMs 10% slower. fp32 runs at its full clock (1965 MHz):
  // its measured session noise (0.2%) makes 10% a verdict. The tensor-core GEMMs run at the 700 W
  // cap, where machine starts differ by 5-10% (session sd 3-5%, few df): 10% is not a verdict
  // there, and the mde column says so instead of a silent "unchanged".
  auto doc = nlohmann::json::parse(cudabench::test::read_text(h200("full.json")));
  for (auto& w : doc["workloads"]) {
    if (w["id"].get<std::string>().find("m=4096/n=4096/k=4096") == std::string::npos) continue;
    for (auto& [name, factor] : {std::pair{"time_ms", 1.10}, std::pair{"tflops", 1 / 1.10}}) {
      auto& m = w["metrics"][name];
      std::vector<double> s = m["samples"].get<std::vector<double>>();
      for (double& x : s) x *= factor;
      m["samples"] = s;
      std::sort(s.begin(), s.end());
      m["median"] = s[s.size() / 2];
      m["min"] = s.front();
      m["max"] = s.back();
    }
  }
  const std::string slower = cudabench::test::temp_path("gemm4096_10pct_slower.json");
  cudabench::test::write_text(slower, doc.dump());
  const auto r = run_cudabench("compare " + h200("full.json") + " " + slower + " --filter 'matmul/*4096*'");
  std::remove(slower.c_str());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("matmul fp32 4096³ (ms)     2.720*         2.992*  -10.0%"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("0 improved, 1 regressed, 0 unchanged, 4 inconclusive"), std::string::npos) << r.output;
  const auto line = [&](const std::string& row) {
    const std::string rest = r.output.substr(r.output.find(row));
    return rest.substr(0, rest.find('\n'));
  };
  EXPECT_NE(line("matmul fp32 4096³").find("regressed"), std::string::npos) << r.output;
  for (const char* capped : {"matmul tf32 4096³", "matmul fp16 4096³", "matmul bf16 4096³", "matmul fp8 4096³"})
    EXPECT_NE(line(capped).find("inconclusive"), std::string::npos) << r.output;
}

TEST(CliNoise, AFileWithRoundsOnAnUnmeasuredGpuShowsThePriorItsRoundsGive) {
  // The H100 A/A's file (4 rounds) relabelled as a GPU model with no committed session (the prior
  // knows the H100 itself now): its timed rows' within-session noise is pooled from the file's own
  // rounds, as compare would pool it; peak memory keeps the table.
  nlohmann::ordered_json doc = nlohmann::ordered_json::parse(cudabench::test::read_text(
      std::string(CUDABENCH_CONFIG_DIR) + "/../results/h100/verdicts/aa-full-4rounds-a676b81/A.json"));
  doc["environment"]["device"]["name"] = "NVIDIA A100-SXM4-80GB";
  const std::string file = cudabench::test::temp_path("unmeasured_gpu_aa.json");
  cudabench::test::write_text(file, doc.dump());
  const auto r = run_cudabench("noise " + file + " --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("matmul/dtype=fp32/m=8192/n=8192/k=8192 · time_ms,NVIDIA A100-SXM4-80GB,fallback,0,known,"),
            std::string::npos)
      << r.output;
  std::size_t pooled = 0, pos = 0;
  while ((pos = r.output.find(",pooled\n", pos)) != std::string::npos) ++pooled, ++pos;
  EXPECT_EQ(pooled, 40u) << r.output;
  // The filter limits the evidence too, as in compare: ResNet's 4 rows pool, training's 2 alone cannot.
  const auto t = run_cudabench("noise " + file + " --filter 'resnet50/*'");
  ASSERT_EQ(t.exit_code, 0) << t.output;
  EXPECT_NE(t.output.find("Within-session noise of 4 rows that no measurement knows: pooled from this file's rounds"),
            std::string::npos)
      << t.output;
  const auto two = run_cudabench("noise " + file + " --filter 'train_step/*'");
  ASSERT_EQ(two.exit_code, 0) << two.output;
  EXPECT_EQ(two.output.find("pooled"), std::string::npos) << two.output;
  std::remove(file.c_str());
}
