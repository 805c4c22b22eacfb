// Fleets on synthetic per-GPU results (fleet.hpp, fleet_compare.hpp): merging, the outlier lines
// (a planted slow GPU, a GPU stuck at low clocks, a GPU with another power limit), a uniform fleet,
// the file round trip, and compare on fleets.
#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "cudabench/compare.hpp"
#include "cudabench/errors.hpp"
#include "cudabench/fleet.hpp"
#include "cudabench/fleet_compare.hpp"
#include "cudabench/fleet_report.hpp"

using namespace cudabench;

namespace {

struct gpu_spec {
  std::string host = "node01";
  int index = 0;
  double speed = 1.0;  // time multiplier (1.2 = 20% slower)
  double sm_mhz = 1755, power_limit_w = 700;
  unsigned seed = 0;
  std::string sha = "abc";
  bool train_fails = false;
};

// Two workloads: an 8192^3 fp16 GEMM (time_ms, session noise 3%: floor 9%) and a train step
// (step_ms, floor 6%); 3 rounds of 5 repetitions, 0.3% between GPUs, 0.1% within.
fleet_gpu make_gpu(const gpu_spec& g) {
  std::mt19937_64 rng(g.seed * 7919 + static_cast<unsigned>(g.index) * 31 + std::hash<std::string>{}(g.host));
  std::normal_distribution<double> level(0.0, 0.003), within(0.0, 0.001);
  result_file r;
  r.environment = {{"label", "CUDA 13.0"},
                   {"hostname", g.host},
                   {"driver_version", "580.159.04"},
                   {"cuda_runtime", "13.0"},
                   {"device",
                    {{"index", g.index},
                     {"name", "NVIDIA H200"},
                     {"pci_bus_id", "00000000:1" + std::to_string(g.index) + ":00.0"},
                     {"max_sm_clock_mhz", 1980},
                     {"power_limit_w", g.power_limit_w}}}};
  r.suite = {{"name", "full"}, {"sha256", g.sha}};
  r.rounds = 3;
  const double gpu_level = 1.0 + level(rng);
  auto add = [&](const std::string& id, const std::string& kind, nlohmann::ordered_json params, const char* metric_name,
                 double base, bool fails) {
    workload_result w;
    w.id = id;
    w.kind = kind;
    w.params = std::move(params);
    if (fails) {
      w.state = status::error;
      w.message = "CUDA error: an illegal memory access";
      r.workloads.push_back(std::move(w));
      return;
    }
    std::vector<double> s;
    std::vector<int> rounds;
    for (int round = 0; round < 3; ++round)
      for (int k = 0; k < 5; ++k) {
        s.push_back(base * g.speed * gpu_level * (1.0 + within(rng)));
        rounds.push_back(round);
        w.clocks.sm_mhz.push_back(g.sm_mhz);
        w.clocks.power_w.push_back(std::min(699.0, g.power_limit_w - 1));
      }
    metric m = make_metric("ms", better::lower, s);
    m.rounds = rounds;
    w.metrics.emplace_back(metric_name, std::move(m));
    r.workloads.push_back(std::move(w));
  };
  add("matmul/dtype=fp16/m=8192/n=8192/k=8192", "matmul", {{"dtype", "fp16"}, {"m", 8192}, {"n", 8192}, {"k", 8192}},
      "time_ms", 1.666, false);
  add("train_step/dtype=fp16", "train_step", {{"dtype", "fp16"}}, "step_ms", 12.9, g.train_fails);
  fleet_gpu out;
  out.host = g.host;
  out.index = g.index;
  out.file = g.host + "-gpu-" + std::to_string(g.index) + ".json";
  out.result = std::move(r);
  return out;
}

// Two hosts of four GPUs; `tweak` changes one GPU's spec.
std::vector<fleet_gpu> eight_gpus(const std::function<void(gpu_spec&)>& tweak = {}, unsigned seed = 0) {
  std::vector<fleet_gpu> out;
  for (const char* host : {"node02", "node01"})  // out of order: make_fleet sorts
    for (int i = 0; i < 4; ++i) {
      gpu_spec g;
      g.host = host;
      g.index = i;
      g.seed = seed;
      if (tweak) tweak(g);
      out.push_back(make_gpu(g));
    }
  return out;
}

bool contains(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

}  // namespace

TEST(Fleet, MergesHostsInOrderWithOneValuePerGpu) {
  const fleet_file f = make_fleet(eight_gpus(), outlier_rule{});
  ASSERT_EQ(f.gpus.size(), 8u);
  EXPECT_EQ(f.gpus[0].name(), "node01 GPU 0");
  EXPECT_EQ(f.gpus[7].name(), "node02 GPU 3");
  EXPECT_EQ(f.label, "CUDA 13.0");
  ASSERT_EQ(f.workloads.size(), 2u);
  EXPECT_EQ(f.workloads[0].metric, "time_ms");
  EXPECT_EQ(f.workloads[0].ok_count(), 8u);
  EXPECT_NEAR(f.workloads[0].analysis.median, 1.666, 0.02);
  EXPECT_TRUE(f.workloads[0].analysis.judged);
  EXPECT_DOUBLE_EQ(f.workloads[0].analysis.floor_pct, 9.0);  // 3 x the 3% GPU spread floor of large GEMMs
  EXPECT_DOUBLE_EQ(f.workloads[1].analysis.floor_pct, 6.0);
}

TEST(Fleet, AUniformFleetFlagsNothing) {
  for (unsigned seed = 0; seed < 20; ++seed) {
    const fleet_file f = make_fleet(eight_gpus({}, seed), outlier_rule{});
    EXPECT_TRUE(f.outliers.empty()) << "seed " << seed << ": " << f.outliers.front().line;
    EXPECT_TRUE(f.outlier_gpus.empty());
    EXPECT_TRUE(f.differences.empty());
  }
}

TEST(Fleet, APlantedSlowGpuIsFlaggedOnEveryWorkload) {
  const fleet_file f = make_fleet(eight_gpus([](gpu_spec& g) {
                                    if (g.host == "node02" && g.index == 2) g.speed = 1.15;
                                  }),
                                  outlier_rule{});
  ASSERT_EQ(f.outlier_gpus.size(), 1u);
  EXPECT_EQ(f.gpus[f.outlier_gpus[0].gpu].name(), "node02 GPU 2");
  EXPECT_EQ(f.outlier_gpus[0].flagged, 2);
  EXPECT_EQ(f.outlier_gpus[0].judged, 2);
  EXPECT_TRUE(contains(f.outlier_gpus[0].line, "node02 GPU 2 (NVIDIA H200, 00000000:12:00.0): outlier on 2 of 2"))
      << f.outlier_gpus[0].line;
  ASSERT_EQ(f.outliers.size(), 2u);
  for (const auto& o : f.outliers) {
    EXPECT_TRUE(o.worse);
    EXPECT_TRUE(contains(o.line, "slower")) << o.line;
  }
}

TEST(Fleet, AGpuStuckAtLowClocksIsFlaggedWithItsClock) {
  // A GPU held at 1410 MHz (the fleet runs at 1755): 20% slower on the compute-bound workloads.
  const fleet_file f = make_fleet(eight_gpus([](gpu_spec& g) {
                                    if (g.host == "node01" && g.index == 3) {
                                      g.sm_mhz = 1410;
                                      g.speed = 1755.0 / 1410.0;
                                    }
                                  }),
                                  outlier_rule{});
  ASSERT_EQ(f.outlier_gpus.size(), 1u);
  const std::string& line = f.outlier_gpus[0].line;
  EXPECT_TRUE(contains(line, "node01 GPU 3")) << line;
  EXPECT_TRUE(contains(line, "SM clock 1410 MHz vs fleet 1755")) << line;
  EXPECT_TRUE(contains(line, "power limit 700 W (as the fleet)")) << line;
  for (const auto& o : f.outliers) EXPECT_TRUE(contains(o.line, "SM clock 1410 MHz vs fleet 1755")) << o.line;
}

TEST(Fleet, AGpuWithAnotherPowerLimitIsFlaggedWithItsLimit) {
  const fleet_file f = make_fleet(eight_gpus([](gpu_spec& g) {
                                    if (g.host == "node02" && g.index == 0) {
                                      g.power_limit_w = 500;
                                      g.sm_mhz = 1500;
                                      g.speed = 1.17;
                                    }
                                  }),
                                  outlier_rule{});
  ASSERT_EQ(f.outlier_gpus.size(), 1u);
  EXPECT_TRUE(contains(f.outlier_gpus[0].line, "power limit 500 W vs fleet 700 W")) << f.outlier_gpus[0].line;
  ASSERT_EQ(f.differences.size(), 1u);
  EXPECT_EQ(f.differences[0].field, "power_limit_w");
  ASSERT_EQ(f.differences[0].groups.size(), 2u);
  EXPECT_EQ(f.differences[0].groups[1].second, std::vector<std::string>{"node02 GPU 0"});
}

TEST(Fleet, FailuresAndMissingGpusAreNotedNotCounted) {
  auto gpus = eight_gpus([](gpu_spec& g) { g.train_fails = g.host == "node01" && g.index == 1; });
  gpus[0].result.reset();  // node02 GPU 0: its process left nothing
  gpus[0].exit_code = 3;
  gpus[0].note = "no CUDA device found";
  gpus[3].result->environment["other_processes"] = {
      {{"pid", 4242}, {"name", "python3"}, {"used_memory_bytes", 1073741824}}};
  const fleet_file f = make_fleet(std::move(gpus), outlier_rule{});
  EXPECT_EQ(f.ok_gpus(), 7u);
  EXPECT_EQ(f.workloads[1].ok_count(), 6u);
  EXPECT_EQ(f.workloads[1].values.size(), 7u);
  std::string notes;
  for (const auto& n : f.notes) notes += n + "\n";
  EXPECT_TRUE(contains(notes, "node02 GPU 0: no result (no CUDA device found)")) << notes;
  EXPECT_TRUE(
      contains(notes, "node02 GPU 3: 1 other process held the GPU when it was measured (pid 4242 (python3), 1.0 GiB)"))
      << notes;
}

TEST(Fleet, RefusesDuplicatesMixedSuitesAndNothing) {
  auto gpus = eight_gpus();
  gpus.push_back(gpus[1]);
  EXPECT_THROW(make_fleet(gpus, outlier_rule{}), input_error);
  EXPECT_THROW(make_fleet(eight_gpus([](gpu_spec& g) { g.sha = g.index == 2 ? "other" : "abc"; }), outlier_rule{}),
               input_error);
  std::vector<fleet_gpu> none(1);
  none[0].host = "x";
  EXPECT_THROW(make_fleet(none, outlier_rule{}), input_error);
}

TEST(Fleet, TheFileRoundTripsAndTheSummaryIsRecomputed) {
  const fleet_file f =
      make_fleet(eight_gpus([](gpu_spec& g) { g.speed = g.index == 1 && g.host == "node01" ? 1.3 : 1.0; }),
                 outlier_rule{4.0, 7.5, 3.0, 3}, "fleet A");
  const auto j = nlohmann::ordered_json::parse(to_json(f).dump());  // as written and read back
  EXPECT_EQ(j["format"], "cudabench-fleet");
  EXPECT_EQ(j["schema_version"], "1.0");
  EXPECT_EQ(j["gpu_count"], 8);
  EXPECT_EQ(j["outlier_gpus"].size(), 1u);
  ASSERT_TRUE(is_fleet_json(j));
  const fleet_file back = fleet_from_json(j, "fleet.json");
  EXPECT_EQ(back.label, "fleet A");
  EXPECT_DOUBLE_EQ(back.rule.k, 4.0);
  EXPECT_DOUBLE_EQ(back.rule.min_deviation_pct, 7.5);
  const auto again = nlohmann::ordered_json::parse(to_json(back).dump());
  EXPECT_EQ(again["workloads"], j["workloads"]);
  EXPECT_EQ(again["outliers"], j["outliers"]);
  EXPECT_EQ(again["gpus"], j["gpus"]);

  auto bad = j;
  bad["schema_version"] = "2.0";
  EXPECT_THROW(fleet_from_json(bad, "x"), input_error);
  bad = j;
  bad["gpus"][0].erase("host");
  try {
    fleet_from_json(bad, "x.json");
    FAIL();
  } catch (const input_error& e) {
    EXPECT_TRUE(contains(e.what(), "x.json: gpus[0]: missing required field \"host\"")) << e.what();
  }
}

TEST(FleetCompare, AFleetIsAResultWhoseRoundsAreItsGpus) {
  auto gpus = eight_gpus([](gpu_spec& g) { g.train_fails = g.host == "node02" && g.index == 3; });
  const result_file r = fleet_as_result(make_fleet(std::move(gpus), outlier_rule{}));
  EXPECT_EQ(r.rounds, 8);
  EXPECT_EQ(r.label(), "CUDA 13.0");
  EXPECT_EQ(r.environment["device"]["name"], "NVIDIA H200");
  ASSERT_EQ(r.workloads.size(), 2u);
  const metric* m = r.workloads[0].find_metric("time_ms");
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->samples.size(), 8u);  // one value per GPU
  EXPECT_EQ(m->rounds, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
  EXPECT_EQ(r.workloads[1].state, status::error);  // as a failed round would
  EXPECT_TRUE(contains(r.workloads[1].message, "node02 GPU 3: CUDA error")) << r.workloads[1].message;
}

TEST(FleetCompare, ASlowerCandidateFleetRegressesAndAnEqualOneDoesNot) {
  const fleet_file base = make_fleet(eight_gpus({}, 1), outlier_rule{}, "driver 580");
  const fleet_file same = make_fleet(eight_gpus({}, 2), outlier_rule{}, "driver 590");
  // 25% slower: fp16 8192^3 GEMMs differ 5% between machine starts at the power cap (the measured
  // session noise a fleet comparison adds), so a 12% change is no longer beyond doubt.
  const fleet_file slow = make_fleet(eight_gpus([](gpu_spec& g) { g.speed = 1.25; }, 3), outlier_rule{}, "driver 590");
  const comparison aa = compare_results({fleet_as_result(base), fleet_as_result(same)}, {"a.json", "b.json"}, {});
  EXPECT_FALSE(aa.any_regression());
  const comparison ab = compare_results({fleet_as_result(base), fleet_as_result(slow)}, {"a.json", "c.json"}, {});
  EXPECT_EQ(ab.rows[0].changes[0].outcome, verdict::regressed);
  EXPECT_NEAR(*ab.rows[0].changes[0].change_pct, -25.0, 1.0);  // 25% more time
  EXPECT_EQ(ab.rows[0].changes[0].rounds_baseline, 8);
}

TEST(FleetCompare, GpusAreMatchedByHostAndIndex) {
  auto fewer = eight_gpus();
  fewer.erase(fewer.begin() + 5);  // node01 GPU 1
  const fleet_file a = make_fleet(eight_gpus(), outlier_rule{}), b = make_fleet(std::move(fewer), outlier_rule{});
  std::vector<std::string> missing;
  const auto m = match_gpus({&a, &b}, missing);
  EXPECT_EQ(m.size(), 7u);
  EXPECT_EQ(missing, std::vector<std::string>{"node01 GPU 1"});
  EXPECT_EQ(m[0].name, "node01 GPU 0");
  EXPECT_EQ(m[0].results.size(), 2u);
}

// The fleet CSV quotes as every other CSV of the tool: a host name with a carriage return (or a
// comma, or a quote) is one quoted field, not a broken row.
TEST(FleetReport, CsvQuotesCarriageReturnsCommasAndQuotes) {
  fleet_file f;
  f.gpus.push_back({});
  f.gpus[0].host = "node\r01";
  f.gpus.push_back({});
  f.gpus[1].host = "rack \"7\", node 2";
  fleet_workload w;
  w.id = "matmul/dtype=fp16";
  w.metric = "time_ms";
  w.unit = "ms";
  for (std::size_t g = 0; g < 2; ++g) {
    fleet_value v;
    v.gpu = g;
    v.value = 1.5;
    w.values.push_back(v);
  }
  f.workloads.push_back(w);
  const std::string csv = format_fleet_summary(f, summary_format::csv);
  EXPECT_EQ(csv,
            "id,metric,unit,host,index,status,value,deviation_pct,robust_z,outlier\n"
            "matmul/dtype=fp16,time_ms,ms,\"node\r01\",0,ok,1.5,0.00,0.00,false\n"
            "matmul/dtype=fp16,time_ms,ms,\"rack \"\"7\"\", node 2\",0,ok,1.5,0.00,0.00,false\n");
}
