// Periods of partition.by: UTC arithmetic, and local periods of a zone across daylight-saving
// changes.
#include "rollup/periods.h"

#include <gtest/gtest.h>

namespace strata::rollup {
namespace {

using semantic::TimeGrain;

UnixSeconds At(int year, int month, int day, int hour = 0) {
  return ToUnixSeconds({year, month, day, hour, 0, 0});
}

TEST(Periods, UtcDaysAndMonths) {
  const TimeZone utc;
  EXPECT_EQ(PeriodStart(At(2026, 3, 29, 13), TimeGrain::kDay, utc), At(2026, 3, 29));
  EXPECT_EQ(NextPeriodStart(At(2026, 3, 1), TimeGrain::kMonth, utc), At(2026, 4, 1));
  EXPECT_EQ(PeriodLabel(At(2026, 3, 29), utc), "2026-03-29");
}

// Berlin's 2026-03-29 lasts 23 hours and 2026-10-25 25; a Berlin month starts at its local
// midnight, an hour before UTC's in winter and two in summer.
TEST(Periods, LocalPeriodsOfAZone) {
  const TimeZone berlin = *TimeZone::Find("Europe/Berlin");
  EXPECT_EQ(PeriodStart(At(2026, 3, 28, 23), TimeGrain::kDay, berlin), At(2026, 3, 28, 23));
  EXPECT_EQ(PeriodStart(At(2026, 3, 28, 22), TimeGrain::kDay, berlin), At(2026, 3, 27, 23));
  EXPECT_EQ(NextPeriodStart(At(2026, 3, 28, 23), TimeGrain::kDay, berlin), At(2026, 3, 29, 22));
  EXPECT_EQ(NextPeriodStart(At(2026, 10, 24, 22), TimeGrain::kDay, berlin), At(2026, 10, 25, 23));
  EXPECT_EQ(PeriodStart(At(2026, 4, 15), TimeGrain::kMonth, berlin), At(2026, 3, 31, 22));
  EXPECT_EQ(PeriodStart(At(2026, 3, 31, 23), TimeGrain::kMonth, berlin), At(2026, 3, 31, 22));
  EXPECT_EQ(PeriodLabel(At(2026, 3, 31, 22), berlin), "2026-04-01");
  // Monday 2026-03-30 in Berlin starts at 22:00 UTC on Sunday.
  EXPECT_EQ(PeriodStart(At(2026, 4, 1), TimeGrain::kWeek, berlin), At(2026, 3, 29, 22));
  const std::vector<Period> days =
      PeriodsCovering(At(2026, 3, 28, 23), At(2026, 3, 30, 22), TimeGrain::kDay, berlin);
  ASSERT_EQ(days.size(), 2u);
  EXPECT_EQ(days[0].second - days[0].first, 23 * 3600);
  EXPECT_EQ(days[1].second - days[1].first, 24 * 3600);
}

}  // namespace
}  // namespace strata::rollup
