// average_sm_clock_mhz (sm_clock_stamps.hpp): the average SM clock over a region from per-SM
// cycle-counter stamps before and after it, paired by SM.
#include <vector>

#include <gtest/gtest.h>

#include "cudabench/sm_clock_stamps.hpp"

using namespace cudabench;

namespace {

sm_stamp at(std::uint32_t sm, std::uint64_t cycles, std::uint64_t ns) {
  sm_stamp s;
  s.smid = sm;
  s.cycles = cycles;
  s.ns = ns;
  s.written = 1;
  return s;
}

}  // namespace

TEST(SmClockStamps, CyclesOverNanosecondsOnOneSmIsItsClockInMhz) {
  // 25 ms at 1755 MHz: 43,875,000 cycles.
  const auto mhz = average_sm_clock_mhz({at(0, 1000, 5'000'000)}, {at(0, 1000 + 43'875'000, 30'000'000)});
  ASSERT_TRUE(mhz);
  EXPECT_NEAR(*mhz, 1755.0, 1e-9);
}

TEST(SmClockStamps, OnlyTheSameSmsStampsArePairedAndTheMedianSmStands) {
  // Each SM's counter starts anywhere; SM 7 was stamped only before and SM 9 only after, so
  // neither counts. SMs 1, 2, 3 over 10 ms: 1400, 1500, 1980 MHz -> median 1500.
  const std::vector<sm_stamp> before{at(1, 5, 0), at(2, 1'000'000'000, 0), at(3, 77, 0), at(7, 0, 0)};
  const std::vector<sm_stamp> after{at(3, 77 + 19'800'000, 10'000'000), at(1, 5 + 14'000'000, 10'000'000),
                                    at(9, 1, 10'000'000), at(2, 1'000'000'000 + 15'000'000, 10'000'000)};
  const auto mhz = average_sm_clock_mhz(before, after);
  ASSERT_TRUE(mhz);
  EXPECT_NEAR(*mhz, 1500.0, 1e-9);
}

TEST(SmClockStamps, AnEvenNumberOfSmsAveragesTheMiddleTwo) {
  const auto mhz =
      average_sm_clock_mhz({at(0, 0, 0), at(1, 0, 0)}, {at(0, 14'000'000, 10'000'000), at(1, 15'000'000, 10'000'000)});
  ASSERT_TRUE(mhz);
  EXPECT_NEAR(*mhz, 1450.0, 1e-9);
}

TEST(SmClockStamps, UnwrittenSlotsAndASecondBlockOnOneSmAreIgnored) {
  sm_stamp unwritten = at(4, 0, 0);
  unwritten.written = 0;
  // Two blocks landed on SM 0 before and after: the first of each is kept (1500 MHz), not the
  // second (which would give 3000).
  const auto mhz = average_sm_clock_mhz({at(0, 0, 0), at(0, 0, 5'000'000), unwritten},
                                        {at(0, 15'000'000, 10'000'000), at(0, 30'000'000, 10'000'000), unwritten});
  ASSERT_TRUE(mhz);
  EXPECT_NEAR(*mhz, 1500.0, 1e-9);
}

TEST(SmClockStamps, NoPairAShortWindowOrAStuckCounterGivesNothing) {
  EXPECT_FALSE(average_sm_clock_mhz({}, {}));
  EXPECT_FALSE(average_sm_clock_mhz({at(0, 0, 0)}, {at(1, 15'000'000, 10'000'000)}));
  // 99 us: under the 100 us minimum window.
  EXPECT_FALSE(average_sm_clock_mhz({at(0, 0, 0)}, {at(0, 150'000, sm_clock_min_window_ns - 1'000)}));
  EXPECT_TRUE(average_sm_clock_mhz({at(0, 0, 0)}, {at(0, 150'000, sm_clock_min_window_ns)}));
  // The counter did not advance, or time went backwards: the stamps are not trusted at all.
  EXPECT_FALSE(average_sm_clock_mhz({at(0, 500, 0)}, {at(0, 500, 10'000'000)}));
  EXPECT_FALSE(average_sm_clock_mhz({at(0, 0, 10'000'000)}, {at(0, 15'000'000, 0)}));
}
