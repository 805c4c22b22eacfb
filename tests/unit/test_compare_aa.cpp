// A/A tests: two result files drawn from the same noise must not be reported as improved or
// regressed. The noise comes from a portable generator (mt19937_64 + Box-Muller written here:
// std::normal_distribution differs between standard libraries), through real files on disk.
//
// How often can an A/A row be flagged at all? Both conditions must hold: p < alpha (for 5 vs 5
// the exact null gives P(p < 0.05) = 8/252 = 3.2%) and |change of medians| >= threshold (2%).
// With noise well under the threshold (GPU timings: ~0.1-1%) the second practically never
// happens. With noise as large as the threshold (sd 2%) about 2.2% of rows are flagged (scipy
// simulation, 20 000 trials), i.e. a 20-row A/A run shows a false verdict a third of the time;
// that case is tested as a rate below alpha, not as "zero", which only a lucky seed would give.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "compare_fixtures.hpp"
#include "cudabench/compare.hpp"
#include "cudabench/result.hpp"
#include "test_support.hpp"

using namespace cudabench;

namespace {

class normal_noise {
 public:
  explicit normal_noise(std::uint64_t seed) : rng_(seed) {}
  double operator()(double mean, double sd) {
    const double u1 = uniform(), u2 = uniform();
    return mean + sd * std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  double uniform() { return (static_cast<double>(rng_() >> 11) + 0.5) * 0x1.0p-53; }  // (0, 1)
  std::mt19937_64 rng_;
};

result_file noisy_file(const std::string& label, normal_noise& noise, double sd, int workloads, int samples) {
  std::vector<workload_result> ws;
  for (int i = 0; i < workloads; ++i) {
    std::vector<double> s;
    for (int r = 0; r < samples; ++r) s.push_back(noise(1.0, sd));
    ws.push_back(test::single_metric_workload("noise/i=" + std::to_string(i), "noise", "time_ms", "ms", better::lower, s));
  }
  return test::make_file(label, ws);
}

// improved + regressed rows when comparing two files drawn from the same distribution.
int false_verdicts(std::uint64_t seed, double sd, int workloads, bool via_disk) {
  normal_noise noise(seed);
  result_file a = noisy_file("A", noise, sd, workloads, 5);
  result_file b = noisy_file("A", noise, sd, workloads, 5);
  if (via_disk) {
    const std::string pa = test::temp_path("aa_a.json"), pb = test::temp_path("aa_b.json");
    write_result_file(a, pa);
    write_result_file(b, pb);
    a = read_result_file(pa);
    b = read_result_file(pb);
    std::remove(pa.c_str());
    std::remove(pb.c_str());
  }
  const auto c = compare_results({a, b}, {"a.json", "b.json"}, {});
  const auto n = c.counts(0);
  EXPECT_EQ(n[static_cast<int>(verdict::unchanged)] + n[static_cast<int>(verdict::inconclusive)] +
                n[static_cast<int>(verdict::improved)] + n[static_cast<int>(verdict::regressed)],
            workloads);
  return n[static_cast<int>(verdict::improved)] + n[static_cast<int>(verdict::regressed)];
}

}  // namespace

TEST(CompareAA, SameNoiseGivesNoImprovedOrRegressedRows) {
  // 20 workloads x 5 samples of N(1, 0.005), 20 independent A/A pairs, through files on disk.
  for (std::uint64_t seed = 1; seed <= 20; ++seed) EXPECT_EQ(false_verdicts(seed, 0.005, 20, true), 0) << "seed " << seed;
}

TEST(CompareAA, NoiseAtTheThresholdStaysBelowAlpha) {
  // N(1, 0.02): noise as large as the 2% threshold. 200 pairs x 20 rows.
  int flagged = 0, rows = 0;
  for (std::uint64_t seed = 100; seed < 300; ++seed) {
    flagged += false_verdicts(seed, 0.02, 20, false);
    rows += 20;
  }
  const double rate = static_cast<double>(flagged) / rows;
  std::printf("A/A at sd 2%%: %d of %d rows flagged (%.2f%%)\n", flagged, rows, 100.0 * rate);
  EXPECT_LT(rate, 0.05) << flagged << " of " << rows << " rows flagged";
  EXPECT_GT(rate, 0.005) << "the test would be vacuous";  // ~2.2% expected
}
