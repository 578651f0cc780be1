#include "base/time.h"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace strata {
namespace {

TEST(TimeTest, RoundTripsCivilTime) {
  const CivilTime civil{2024, 2, 29, 23, 59, 58};
  const UnixSeconds seconds = ToUnixSeconds(civil);
  EXPECT_EQ(seconds, 1709251198);
  const CivilTime back = ToCivil(seconds);
  EXPECT_EQ(back.year, 2024);
  EXPECT_EQ(back.month, 2);
  EXPECT_EQ(back.day, 29);
  EXPECT_EQ(back.hour, 23);
  EXPECT_EQ(back.second, 58);
}

TEST(TimeTest, HandlesTimesBeforeEpoch) {
  const CivilTime back = ToCivil(-1);
  EXPECT_EQ(back.year, 1969);
  EXPECT_EQ(back.month, 12);
  EXPECT_EQ(back.day, 31);
  EXPECT_EQ(back.hour, 23);
}

TEST(TimeTest, LeapYears) {
  EXPECT_TRUE(IsLeapYear(2024));
  EXPECT_TRUE(IsLeapYear(2000));
  EXPECT_FALSE(IsLeapYear(1900));
  EXPECT_FALSE(IsLeapYear(2025));
  EXPECT_EQ(DaysInMonth(2024, 2), 29);
  EXPECT_EQ(DaysInMonth(2100, 2), 28);
}

TEST(TimeTest, Formats) {
  const UnixSeconds t = ToUnixSeconds({2026, 4, 7, 13, 0, 0});
  EXPECT_EQ(FormatSqlTimestamp(t), "2026-04-07 13:00:00");
  EXPECT_EQ(FormatIso8601(t), "2026-04-07T13:00:00Z");
}

TEST(TimeTest, ParsesItsOwnIsoForm) {
  const UnixSeconds t = ToUnixSeconds({2024, 2, 29, 23, 5, 9});
  EXPECT_EQ(ParseIso8601(FormatIso8601(t)), t);
  EXPECT_FALSE(ParseIso8601("2024-02-30T00:00:00Z").has_value());
  EXPECT_FALSE(ParseIso8601("2024-02-29T00:00:00").has_value());
  EXPECT_FALSE(ParseIso8601("2024-2-29T00:00:00Z").has_value());
  EXPECT_FALSE(ParseIso8601("2024-02-29T00:00:00Zx").has_value());
}

// A run's retry backoff waits through Clock::Wait: SIGINT (the cancel flag) must cut even an
// hour-long wait short. Without that, this test hangs until ctest's timeout fails it.
TEST(ClockTest, WaitEndsWhenCancelled) {
  std::atomic<bool> cancel{false};
  std::atomic<bool> waiting{false};
  std::thread canceller([&] {
    while (!waiting.load()) std::this_thread::yield();
    cancel = true;
  });
  waiting = true;
  EXPECT_FALSE(SystemClock().Wait(3'600'000, cancel));
  canceller.join();
  std::atomic<bool> never{false};
  EXPECT_TRUE(SystemClock().Wait(0, never));
  EXPECT_TRUE(SystemClock().Wait(5, never));
}

}  // namespace
}  // namespace strata
