// Issue 23's table: every hostile input x every command that reads it, and every bad output path x
// every command that writes one. Each row runs the real binary (bounded by `timeout`) and must:
// exit 2 (not a crash, not a hang past 5 s, not exit 0 or 3), say `cudabench: error:` naming the
// file and what is wrong with it (the JSON path where there is one), leave every input byte for
// byte as it was, leave no output, no temporary file and no history database behind. All commands
// share one checked reader (read_result_file, read_fleet_file, sniff_json_file_kind) and one guarded
// writer (write_file_atomically); this table is what holds them to it.
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "cudabench/compare.hpp"
#include "cudabench/fleet.hpp"
#include "cudabench/history_store.hpp"
#include "cudabench/report.hpp"
#include "cudabench/result.hpp"
#include "test_support.hpp"

namespace fs = std::filesystem;
using cudabench::test::data_path;
using cudabench::test::read_text;
using cudabench::test::temp_path;
using cudabench::test::write_text;

namespace {

// The table's files. Their paths are known when the rows are registered; the files themselves are
// made by SetUpTestSuite and removed by TearDownTestSuite (the 5 GiB file is sparse: no disk used).
struct io_files {
  std::string dir = temp_path("io_table");
  std::string good = dir + "/good.json", good2 = dir + "/good2.json", link = dir + "/good-link.json",
              fleet = dir + "/fleet.json", compare_json = dir + "/compare.json", db = dir + "/history.sqlite",
              in_dir = dir + "/fleet-in", deep = dir + "/deep.json", fifo = dir + "/fifo.json",
              sparse = dir + "/sparse.json", e400 = dir + "/e400.json", empty = dir + "/empty.json",
              negative = dir + "/negative.json", huge_sample = dir + "/huge.json";
};
const io_files& files() {
  static const io_files f;
  return f;
}

// cu124.json with its first sample replaced by `sample_literal` (the rounds stay consistent).
std::string result_with_sample(const std::string& sample_literal) {
  std::string text = read_text(data_path("results/cu124.json"));
  const auto start = text.find("\"samples\": [") + 12;
  const auto end = text.find_first_of(",]", start);
  return text.replace(start, end - start, sample_literal);
}

// Everything in the table's directory, recursively (names only): what a row may not add to.
std::set<std::string> listing(const std::string& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) out.insert(e.path().string());
  return out;
}

struct row {
  std::string name;                // gtest name: COMMAND_INPUT
  std::string args;                // the command line after `cudabench`
  std::string file;                // the path the message must name
  std::vector<std::string> words;  // and what it must say about it
  std::string created;             // a path that must not exist afterwards ("" none)
};

std::vector<row> rows() {
  const io_files& f = files();
  struct input {
    std::string name, path;
    std::vector<std::string> words;
    bool valid_for_compare_and_fleet;  // a fleet file is fine for compare and fleet collect
  };
  const std::vector<input> inputs{
      {"nested300k", f.deep, {"workloads[0].params.p[0][0]", "nested deeper than 64 levels"}, false},
      {"fifo", f.fifo, {"is a FIFO (named pipe), not a regular file"}, false},
      {"devzero", "/dev/zero", {"/dev/zero: is a character device, not a regular file"}, false},
      {"sparse5GiB", f.sparse, {"5.0 GiB is larger than a"}, false},
      {"number1e400", f.e400, {"workloads[0].metrics.time_ms.samples[0]: number 1e400 is out of range"}, false},
      {"empty", f.empty, {"empty file"}, false},
      {"negativeSample", f.negative, {"workloads[0].metrics.time_ms.samples[0]: -1 ms is not a possible time"}, false},
      {"sample1e31",
       f.huge_sample,
       {"workloads[0].metrics.time_ms.samples[0]: 1e+31 ms is beyond any measurement"},
       false},
      {"fleetAsResult", f.fleet, {"this is a fleet file"}, true},
      {"compareAsResult", f.compare_json, {"this is a comparison"}, false},
  };
  std::vector<row> out;
  for (const auto& in : inputs) {
    const std::string out_file = f.dir + "/out-" + in.name;
    const std::vector<std::string>& words = in.words;
    if (!in.valid_for_compare_and_fleet) {
      out.push_back({"compare_" + in.name, "compare '" + f.good + "' '" + in.path + "' -o '" + out_file + ".md'",
                     in.path, words, out_file + ".md"});
      out.push_back({"fleetCollect_" + in.name, "fleet collect '" + in.path + "' -o '" + out_file + ".json'", in.path,
                     words, out_file + ".json"});
    }
    out.push_back({"report_" + in.name, "report '" + in.path + "' -o '" + out_file + ".html'", in.path, words,
                   out_file + ".html"});
    out.push_back({"historyAdd_" + in.name, "history add '" + in.path + "' --db '" + out_file + ".sqlite'", in.path,
                   words, out_file + ".sqlite"});
    // A good file first: a batch with one bad file stores nothing and creates no database. (The
    // reader is the same whatever the position; two inputs show the batch rule.)
    if (in.name == "negativeSample" || in.name == "fleetAsResult")
      out.push_back({"historyAddBatch_" + in.name,
                     "history add '" + f.good + "' '" + in.path + "' --db '" + out_file + "-2.sqlite'", in.path, words,
                     out_file + "-2.sqlite"});
    out.push_back({"runTuningFrom_" + in.name,
                   "--suite quick --dry-run --tuning-from '" + in.path + "' -o '" + out_file + "-run.json'", in.path,
                   words, out_file + "-run.json"});
  }
  // Outputs that are inputs (by another name too) or directories.
  const std::string link = f.link, gpu0 = f.in_dir + "/vm-gpu-0.json";
  const std::vector<std::string> is_input{"cannot be written: it is the input file"};
  const std::vector<std::string> is_dir{"cannot be written: it is a directory"};
  out.push_back({"compare_outputIsInput", "compare '" + f.good + "' '" + f.good2 + "' -o '" + f.good2 + "'", f.good2,
                 is_input, ""});
  out.push_back({"compare_outputIsInputBySymlink", "compare '" + f.good + "' '" + f.good2 + "' -o '" + link + "'", link,
                 is_input, ""});
  out.push_back({"report_outputIsInput", "report '" + f.good + "' -o '" + f.good + "'", f.good, is_input, ""});
  out.push_back({"report_outputIsInputBySymlink", "report '" + f.good2 + "' -o '" + link + "'", link, is_input, ""});
  out.push_back(
      {"historyShow_outputIsDatabase", "history show --db '" + f.db + "' -o '" + f.db + "'", f.db, is_input, ""});
  out.push_back({"fleetCollect_outputIsInputInDirectory", "fleet collect '" + f.in_dir + "' -o '" + gpu0 + "'", gpu0,
                 is_input, ""});
  out.push_back(
      {"fleetCollect_outputIsInput", "fleet collect '" + f.good + "' -o '" + f.good + "'", f.good, is_input, ""});
  out.push_back({"compare_outputIsDirectory", "compare '" + f.good + "' '" + f.good2 + "' -o '" + f.in_dir + "'",
                 f.in_dir, is_dir, ""});
  out.push_back({"report_outputIsDirectory", "report '" + f.good + "' -o '" + f.in_dir + "'", f.in_dir, is_dir, ""});
  out.push_back({"historyShow_outputIsDirectory", "history show --db '" + f.db + "' -o '" + f.in_dir + "'", f.in_dir,
                 is_dir, ""});
  out.push_back({"fleetCollect_outputIsDirectory", "fleet collect '" + f.in_dir + "' -o '" + f.in_dir + "'", f.in_dir,
                 is_dir, ""});
  // /proc passes the checks made before writing (it exists; root may write there) but no file can be
  // created in it: the message names the output and its directory, not the temporary file.
  out.push_back({"compare_outputInDirectoryWithoutFiles",
                 "compare '" + f.good + "' '" + f.good2 + "' -o /proc/cudabench-io-table.md",
                 "/proc/cudabench-io-table.md",
                 {"cannot be written", "/proc"},
                 ""});
  out.push_back({"runDryRun_outputIsSuite",
                 "--suite '" + std::string(CUDABENCH_CONFIG_DIR) + "/quick.json' --dry-run -o '" +
                     std::string(CUDABENCH_CONFIG_DIR) + "/quick.json'",
                 "quick.json", is_input, ""});
  return out;
}

// Size and hash of every regular file the table reads, to prove none was touched.
std::map<std::string, std::pair<std::size_t, std::size_t>> snapshot() {
  std::map<std::string, std::pair<std::size_t, std::size_t>> out;
  auto add = [&out](const std::string& path) {
    const std::string text = read_text(path);
    out[path] = {text.size(), std::hash<std::string>{}(text)};
  };
  for (const auto& e : fs::recursive_directory_iterator(files().dir))
    if (e.is_regular_file() && e.path() != files().sparse) add(e.path().string());
  add(std::string(CUDABENCH_CONFIG_DIR) + "/quick.json");
  return out;
}

void PrintTo(const row& r, std::ostream* os) { *os << r.name; }

class CliIo : public ::testing::TestWithParam<row> {
 protected:
  static void SetUpTestSuite() {
    const io_files& f = files();
    fs::remove_all(f.dir);
    fs::create_directories(f.in_dir);
    write_text(f.good, read_text(data_path("results/cu121.json")));
    write_text(f.good2, read_text(data_path("results/cu124.json")));
    ASSERT_EQ(::symlink(f.good2.c_str(), f.link.c_str()), 0);
    write_text(f.in_dir + "/vm-gpu-0.json", read_text(data_path("results/cu121.json")));
    write_text(f.in_dir + "/vm-gpu-1.json", read_text(data_path("results/cu124.json")));
    // A fleet, a comparison and a history, made in this process (each row is its own process
    // under ctest: three more cudabench runs per row would triple the table's time).
    using namespace cudabench;
    const result_file a = read_result_file(f.good), b = read_result_file(f.good2);
    std::vector<fleet_gpu> gpus(2);
    gpus[0].host = gpus[1].host = "vm";
    gpus[1].index = 1;
    gpus[0].result = a;
    gpus[1].result = b;
    write_fleet_file(make_fleet(gpus, outlier_rule{}), f.fleet);
    std::ostringstream cmp;
    make_reporter("json")->report(compare_results({a, b}, {f.good, f.good2}, compare_options{}), cmp);
    write_text(f.compare_json, cmp.str());
    history_store(f.db, true).add_file(f.good);

    // A result whose first workload's params nest 300,000 arrays deep.
    {
      std::string text = read_text(data_path("results/cu124.json"));
      const auto pos = text.find("\"params\": {");
      ASSERT_NE(pos, std::string::npos);
      text.insert(pos + 11, "\"p\": " + std::string(300000, '[') + std::string(300000, ']') + ", ");
      write_text(f.deep, text);
    }
    ASSERT_EQ(::mkfifo(f.fifo.c_str(), 0600), 0);
    write_text(f.sparse, "");
    ASSERT_EQ(::truncate(f.sparse.c_str(), 5ll << 30), 0);
    write_text(f.e400, result_with_sample("1e400"));
    write_text(f.empty, "");
    write_text(f.negative, result_with_sample("-1"));
    write_text(f.huge_sample, result_with_sample("1e31"));
  }
  static void TearDownTestSuite() {
    std::error_code ec;
    fs::remove_all(files().dir, ec);
  }
};

TEST_P(CliIo, RefusedWithExitTwoNamingTheFileAndNothingChanged) {
  const row& r = GetParam();
  const auto before = snapshot();
  const auto files_before = listing(files().dir);
  const auto t0 = std::chrono::steady_clock::now();
  // -k: a command that ignores SIGTERM is killed a second later; 124 or 137 then means it hung.
  const cli_result out = run_command("timeout -k 1 5 " + std::string(CUDABENCH_BINARY) + " " + r.args);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  EXPECT_EQ(out.exit_code, 2) << r.args << "\n" << out.output;
  EXPECT_LT(seconds, 5.0) << r.args;
  // One error line (a dry run prints its plan first; fleet collect what it passed over).
  EXPECT_NE(out.output.find("cudabench: error: "), std::string::npos) << out.output;
  EXPECT_NE(out.output.find(r.file), std::string::npos) << "the message names " << r.file << "\n" << out.output;
  for (const auto& w : r.words)
    EXPECT_NE(out.output.find(w), std::string::npos) << "the message says: " << w << "\n" << out.output;
  EXPECT_EQ(out.output.find("json.exception"), std::string::npos) << out.output;
  EXPECT_EQ(out.output.find(".tmp-"), std::string::npos) << "the message names a temporary file\n" << out.output;
  EXPECT_EQ(snapshot(), before) << "an input file changed";
  EXPECT_EQ(listing(files().dir), files_before) << "a file (output, temporary file, database) was left behind";
  if (!r.created.empty()) EXPECT_FALSE(fs::exists(r.created)) << r.created;
}

INSTANTIATE_TEST_SUITE_P(EveryHostileInputAndCommand, CliIo, ::testing::ValuesIn(rows()),
                         [](const ::testing::TestParamInfo<row>& i) { return i.param.name; });

}  // namespace
