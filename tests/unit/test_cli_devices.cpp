// `run --devices`, `ab --devices`, `fleet collect` and `compare` on fleets end to end without a
// GPU: each GPU's process is the fake cudabench (tests/fake/fake_cudabench.cpp) reading its
// `--device N`, and the real cudabench schedules them at once, builds the fleet and flags outliers.
#include <filesystem>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "cudabench/fleet.hpp"
#include "cudabench/result.hpp"
#include "test_support.hpp"

using namespace cudabench;

namespace {

const std::string fake = CUDABENCH_FAKE_BINARY;

std::string fresh_dir(const std::string& name) {
  const std::string d = test::temp_path(name);
  std::filesystem::remove_all(d);
  return d;
}

std::string with_fake(const std::string& more = "") { return "CUDABENCH_ROUND_COMMAND=" + fake + " " + more; }

bool contains(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

}  // namespace

TEST(CliDevices, EveryGpuAtOnceOneResultEachAndTheSlowOneFlagged) {
  const std::string dir = fresh_dir("devices"), barrier = dir + "-barrier";
  std::filesystem::remove_all(barrier);
  // FAKE_BARRIER: each GPU's process waits until all four have started, so this passes only when
  // they run at the same time.
  const auto r = run_cudabench("--suite quick --devices 0-3 --host nodeA -o " + dir,
                               with_fake("FAKE_SLOW_DEVICE=2 FAKE_BARRIER=" + barrier + ":4"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (int d = 0; d < 4; ++d) {
    const std::string file = dir + "/nodeA-gpu-" + std::to_string(d) + ".json";
    ASSERT_TRUE(std::filesystem::exists(file)) << file;
    EXPECT_EQ(read_result_file(file).environment["device"]["index"], d);  // the child got --device d
  }
  const fleet_file f = read_fleet_file(dir + "/nodeA-fleet.json");
  EXPECT_EQ(f.gpus.size(), 4u);
  ASSERT_EQ(f.outlier_gpus.size(), 1u);
  EXPECT_EQ(f.gpus[f.outlier_gpus[0].gpu].name(), "nodeA GPU 2");
  EXPECT_TRUE(contains(f.outlier_gpus[0].line, "SM clock 1410 MHz vs fleet 1980")) << f.outlier_gpus[0].line;
  EXPECT_TRUE(contains(r.output, "Outlier GPUs:")) << r.output;
  EXPECT_TRUE(contains(r.output, "nodeA GPU 2 (Fake GPU")) << r.output;
  std::filesystem::remove_all(barrier);
}

TEST(CliDevices, AllAsksTheMeasuringCommandHowManyGpus) {
  const std::string dir = fresh_dir("devices_all");
  auto r = run_cudabench("--suite quick --devices all --host h -o " + dir + " --format json",
                         with_fake("FAKE_DEVICE_COUNT=3"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read_fleet_file(dir + "/h-fleet.json").gpus.size(), 3u);
  EXPECT_TRUE(contains(r.output, "\"format\": \"cudabench-fleet\"")) << r.output;  // --format json: the fleet
  // No GPU: the count fails, exit 3, nothing runs.
  r = run_cudabench("--suite quick --devices all -o " + dir + "-none", with_fake());
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_TRUE(contains(r.output, "--devices all: no GPU to run on")) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir + "-none"));
}

TEST(CliDevices, RoundsComposeEachGpusProcessRunsItsRounds) {
  const std::string dir = fresh_dir("devices_rounds");
  const auto r = run_cudabench("--suite quick --devices 0,1 --rounds 3 --host h -o " + dir + " --quiet", with_fake());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (int d : {0, 1}) {
    const result_file g = read_result_file(dir + "/h-gpu-" + std::to_string(d) + ".json");
    EXPECT_EQ(g.rounds, 3);
    EXPECT_EQ(g.environment["device"]["index"], d);
    EXPECT_TRUE(std::filesystem::exists(dir + "/h-gpu-" + std::to_string(d) + ".json.rounds/round-3.json"));
  }
  EXPECT_EQ(read_fleet_file(dir + "/h-fleet.json").gpus[1].result->rounds, 3);
}

TEST(CliDevices, AGpuThatFailsIsNamedAndTheOthersAreKept) {
  const std::string dir = fresh_dir("devices_fail");
  const auto r = run_cudabench("--suite quick --devices 0,1,2 --host h -o " + dir + " --quiet",
                               with_fake("FAKE_FAIL_DEVICE=1 FAKE_BUSY_DEVICE=2"));
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_TRUE(contains(r.output, "GPU 1: exit code 3")) << r.output;
  EXPECT_TRUE(contains(r.output, "1 of 3 GPUs produced no result")) << r.output;
  const fleet_file f = read_fleet_file(dir + "/h-fleet.json");
  EXPECT_EQ(f.ok_gpus(), 2u);
  std::string notes;
  for (const auto& n : f.notes) notes += n + "\n";
  EXPECT_TRUE(contains(notes, "h GPU 1: no result (exit code 3, no result file; fake_cudabench: error: --device 1"))
      << notes;
  // The contention check's record, carried into the fleet and printed.
  EXPECT_TRUE(contains(notes, "h GPU 2: 1 other process held the GPU")) << notes;
  EXPECT_TRUE(contains(r.output, "pid 4242 (python3)")) << r.output;
}

TEST(CliDevices, BadDeviceOptionsExitTwo) {
  for (const std::string args : {"--devices 1,1", "--devices x", "--devices 3-1", "--devices ''",
                                 "--devices 0 --device 1", "--host h", "--devices 0 -o out.json"}) {
    const auto r = run_cudabench("--suite quick " + args, with_fake("FAKE_DEVICE_COUNT=2"));
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
  }
  const auto r = run_cudabench("--suite quick --devices 0,2 --dry-run");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "on GPUs 0, 2 at once, one process each")) << r.output;
  // -o names the directory the run makes, and the plan says so (it said "none (--no-output)").
  const auto o = run_cudabench("--suite quick --devices 0,2 --dry-run -o node01");
  EXPECT_EQ(o.exit_code, 0) << o.output;
  EXPECT_TRUE(contains(o.output, "result directory: node01/ (one result file per GPU and the fleet summary"))
      << o.output;
}

TEST(CliFleet, CollectMergesHostsAndComparesFleets) {
  const std::string dir = fresh_dir("collect"), dir2 = fresh_dir("collect2");
  // Two hosts sharing one directory, as the Slurm job array does; node B's GPU 1 is slow.
  for (const std::string host : {"nodeA", "nodeB"}) {
    auto r = run_cudabench("--suite quick --devices 0,1 --host " + host + " -o " + dir + " --quiet",
                           with_fake("FAKE_SLOW_DEVICE=nodeB:1 SLURMD_NODENAME=" + host));
    ASSERT_EQ(r.exit_code, 0) << r.output;
    r = run_cudabench("--suite quick --devices 0,1 --host " + host + " -o " + dir2 + " --quiet",
                      with_fake("FAKE_SHIFT=15"));
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
  auto r = run_cudabench("fleet collect " + dir + " -o " + dir + "/fleet.json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  fleet_file f = read_fleet_file(dir + "/fleet.json");
  ASSERT_EQ(f.gpus.size(), 4u);
  EXPECT_EQ(f.gpus[3].name(), "nodeB GPU 1");
  ASSERT_EQ(f.outlier_gpus.size(), 1u);
  EXPECT_EQ(f.outlier_gpus[0].gpu, 3u);
  EXPECT_TRUE(contains(r.output, "nodeB GPU 1 (Fake GPU")) << r.output;
  // Collecting again skips its own output; a host without its summary counts through its GPU files.
  std::filesystem::remove(dir + "/nodeA-fleet.json");
  r = run_cudabench("fleet collect " + dir + " -o " + dir + "/fleet.json --format csv");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read_fleet_file(dir + "/fleet.json").gpus.size(), 4u);
  EXPECT_TRUE(contains(r.output, "fake/i=0,step_ms,ms,nodeB,1,ok,")) << r.output;

  r = run_cudabench("fleet collect " + dir2 + " -o " + dir2 + "/fleet.json");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // Baseline fleet vs candidate fleet (15% slower on fake/i=0 everywhere), per-GPU values as replicates.
  r = run_cudabench("compare " + dir + "/fleet.json " + dir2 + "/fleet.json --format json --per-gpu");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto j = nlohmann::json::parse(r.output.substr(r.output.find('{')));
  EXPECT_EQ(j["fleet"]["files"][0]["rounds"], 4);  // four GPUs
  ASSERT_EQ(j["per_gpu"].size(), 4u);
  EXPECT_EQ(j["per_gpu"][3]["gpu"], "nodeB GPU 1");
  EXPECT_EQ(j["per_gpu"][0]["comparison"]["rows"][0]["changes"][0]["verdict"], "regressed");
  r = run_cudabench("compare " + dir + "/fleet.json " + dir2 + "/fleet.json --per-gpu --format markdown");
  EXPECT_TRUE(contains(r.output, "## nodeA GPU 0")) << r.output;
  r = run_cudabench("compare " + dir + "/fleet.json " + dir + "/nodeB-gpu-0.json --per-gpu");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "is not a fleet file")) << r.output;
}

TEST(CliAbDevices, EachGpuRunsItsInterleavedAbAndTheFleetsAreCompared) {
  const std::string dir = fresh_dir("ab_devices");
  const auto r = run_cudabench("ab " + fake + " \"env FAKE_SHIFT=10 " + fake +
                                   "\" --suite quick --rounds 3 --devices 0,1,2 --host h --labels old,new -o " + dir +
                                   " --format json --fail-on-regression",
                               "");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  for (int d = 0; d < 3; ++d) {
    const std::string g = dir + "/h-gpu-" + std::to_string(d);
    const result_file a = read_result_file(g + "/A.json");
    EXPECT_EQ(a.rounds, 3);
    EXPECT_EQ(a.environment["device"]["index"], d);
    EXPECT_TRUE(std::filesystem::exists(g + "/compare.md"));
    EXPECT_TRUE(contains(r.output, "GPU " + std::to_string(d) + ": 0 improved, 1 regressed")) << r.output;
  }
  const fleet_file fa = read_fleet_file(dir + "/h-fleet-A.json"), fb = read_fleet_file(dir + "/h-fleet-B.json");
  EXPECT_EQ(fa.label, "old");
  EXPECT_EQ(fb.label, "new");
  ASSERT_TRUE(fa.interleave.contains("session"));
  EXPECT_EQ(fa.interleave["session"], fb.interleave["session"]);
  const auto j = nlohmann::json::parse(test::read_text(dir + "/compare.json"));
  EXPECT_EQ(j["files"][1]["same_session_as_baseline"], true);
  EXPECT_EQ(j["rows"][0]["id"], "fake/i=0");
  EXPECT_EQ(j["rows"][0]["changes"][0]["verdict"], "regressed");
}
